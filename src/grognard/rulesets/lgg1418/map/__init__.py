"""The map: terrain and control, weather, fronts and sectors, zones of control, railways, what a
side knows of the map, victory conditions (rules 1, 4-A, 6, 7, 8, 11.4, 9 rail part).
"""
