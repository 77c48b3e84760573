"""sweep.compare on outputs eager defines only up to an ambiguity: index
outputs on ties (another order of equal values matches, anything that
selects other values or repeats an index does not) and eigen / singular
vectors (each up to sign, U and V flipped together)."""

from __future__ import annotations

import torch

from opinfo.sweep import compare


def test_sort_indices_on_ties_match_when_they_select_the_values() -> None:
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    expected = torch.sort(x, dim=1)
    reordered = (expected.values, torch.tensor([[3, 1, 2, 0]]))
    assert compare(expected, reordered, (x,)) is None


def test_sort_indices_that_repeat_an_index_do_not_match() -> None:
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    expected = torch.sort(x, dim=1)
    repeated = (expected.values, torch.tensor([[1, 1, 0, 0]]))
    assert compare(expected, repeated, (x,)) is not None


def test_topk_indices_that_select_other_values_do_not_match() -> None:
    x = torch.tensor([[3, 1, 3, 2]])
    expected = torch.topk(x, 2, dim=1)
    assert compare(expected, (expected.values, torch.tensor([[2, 0]])), (x,)) is None
    assert compare(expected, (expected.values, torch.tensor([[0, 3]])), (x,)) is not None


def test_kthvalue_without_keepdim() -> None:
    x = torch.tensor([[2, 5, 2], [7, 7, 1]])
    expected = torch.kthvalue(x, 2, dim=1)
    assert compare(expected, (expected.values, torch.tensor([0, 1])), (x,)) is None
    assert compare(expected, (expected.values, torch.tensor([1, 1])), (x,)) is not None


def test_argsort_permutation_on_ties() -> None:
    x = torch.tensor([True, False, True, False])
    expected = torch.argsort(x)
    assert compare(expected, torch.tensor([3, 1, 2, 0]), (x,)) is None
    assert compare(expected, torch.tensor([1, 1, 0, 2]), (x,)) is not None
    assert compare(expected, torch.tensor([0, 1, 2, 3]), (x,)) is not None


def test_eigenvectors_match_up_to_sign() -> None:
    a = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
    expected = torch.linalg.eigh(a)
    flipped = (expected.eigenvalues, expected.eigenvectors * torch.tensor([[-1.0, 1.0]]))
    assert compare(expected, flipped, (a,)) is None
    swapped = (expected.eigenvalues, expected.eigenvectors.flip(-1))
    assert compare(expected, swapped, (a,)) is not None


def test_singular_vectors_flip_in_pairs() -> None:
    a = torch.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 1.0]])
    expected = torch.linalg.svd(a, full_matrices=False)
    d = torch.tensor([-1.0, 1.0])
    paired = (expected.U * d, expected.S, expected.Vh * d[:, None])
    assert compare(expected, paired, (a,)) is None
    unpaired = (expected.U * d, expected.S, expected.Vh)
    assert compare(expected, unpaired, (a,)) is not None
