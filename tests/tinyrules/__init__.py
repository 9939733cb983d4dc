"""A tiny rule system used only by the engine's own tests.

It exercises every core feature with as little game as possible:

* T 1  sequence: turns of two player turns (Blue, Red), each a movement and a combat phase
* T 2  secret posture: at the start of every turn both sides secretly choose a posture
* T 3  movement: a piece moves to an adjacent hex not occupied by the enemy; hexside
       'wall' forbids crossing
* T 4  combat: attack an adjacent enemy hex; the defender may first commit a reserve from
       its reserve box (an interrupt step for the non-phasing side); one d6 on the CRT
* T 5  scouts: a 'scout' piece is hidden from the enemy until an enemy piece is adjacent
       (then it is revealed for good)
* T 6  victory: after the last turn, the side owning more 'objective' places wins
"""

from grognard.rulesets import register
from tests.tinyrules.ruleset import Tiny

register(Tiny)

__all__ = ["Tiny"]
