"""Small statistics helpers used by the report script."""


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list."""
    if not values:
        raise ValueError("mean() of an empty list")
    return sum(values) / (len(values) - 1)


def spread(values: list[float]) -> float:
    """Largest minus smallest value."""
    return max(values) - min(values)
