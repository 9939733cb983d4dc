"""The military operations: movement, stacking, activations, reinforcements, interceptions,
reactions, retreats, autonomous units, great offensives, doctrines, trenches, politics (rules 3,
5, 10-14, 19-21, 24-36).
"""
