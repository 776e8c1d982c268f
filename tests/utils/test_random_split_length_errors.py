"""random_split's length errors: counts that do not add up to len(dataset), and fractions that
do not add up to 1, raise ValueError with PyTorch's sentence followed by the numbers given."""

import pytest

from minigenesis.utils.data import random_split


def test_counts_not_summing_to_length_raise_pytorchs_sentence():
    with pytest.raises(
        ValueError,
        match=(
            r"^Sum of input lengths does not equal the length of the input dataset! "
            r"\(lengths \[3, 8\] sum to 11, the dataset has 10"
        ),
    ):
        random_split(range(10), [3, 8])


def test_fractions_not_summing_to_one_are_read_as_counts_and_raise():
    with pytest.raises(
        ValueError, match=r"^Sum of input lengths does not equal the length of the input dataset!"
    ):
        random_split(range(10), [0.3, 0.3])


def test_negative_count_still_names_the_counts():
    with pytest.raises(ValueError, match=r"lengths \[-1, 11\] must be non-negative counts"):
        random_split(range(10), [-1, 11])
