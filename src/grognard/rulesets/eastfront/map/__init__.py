"""The map: hex classes, sea zones, ports, zones of control and control of hexes.

EF 2.0, EF 6.0 and EF 9.0 of our base; NM 26.1 and NM 26.2 of the Naval Module.
"""
