"""Checks for stats.py; run with `python test_stats.py`."""

from stats import mean, spread

assert mean([2.0, 4.0, 6.0]) == 4.0, mean([2.0, 4.0, 6.0])
assert mean([5.0]) == 5.0
assert spread([1.0, 7.0, 3.0]) == 6.0
print("all 3 checks passed")
