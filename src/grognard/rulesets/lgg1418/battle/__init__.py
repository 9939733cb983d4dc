"""Battles and sieges: the battle record and its round calculation, the battle procedure, retreats,
breakthroughs, counter-offensives, main and secondary battles, fortresses, artillery, tactics
and tanks (rules 15-18, 23, 29-32, 37-39).
"""
