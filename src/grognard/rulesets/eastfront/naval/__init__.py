"""The Naval Module (NM 25-32).

Naval units and their readiness, naval movement and the Naval Movement Loss Table, ports and
their capacities, transport and evacuation, artillery support, amphibious assault, coast
artillery, flotillas and naval bases.
"""
