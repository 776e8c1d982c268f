"""PyTorch parity: ctc_loss values for every reduction, padded and concatenated targets, blank,
zero_infinity, and the gradient to the logits through log_softmax (PyTorch's backward with
respect to log_probs itself adds exp(log_probs), which cancels through log_softmax)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("blank", [0, 4])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_matches_pytorch(reduction, blank, concatenated):
    rng = np.random.default_rng(1)
    t_max, n, c = 12, 4, 5
    logits = rng.standard_normal((t_max, n, c))
    labels = [k for k in range(c) if k != blank]
    targets = rng.choice(labels, (n, 4))
    targets[1] = [labels[0], labels[0], labels[1], labels[2]]  # a repeat
    tg_len, in_len = [4, 2, 3, 1], [12, 9, 10, 5]
    if concatenated:
        targets = np.concatenate([targets[i, : tg_len[i]] for i in range(n)])
    lm = mg.tensor(logits, requires_grad=True)
    lt = torch.tensor(logits, requires_grad=True)
    ym = F.ctc_loss(lm.log_softmax(2), mg.tensor(targets), in_len, tg_len, blank, reduction)
    yt = torch.nn.functional.ctc_loss(lt.log_softmax(2), torch.tensor(targets), in_len, tg_len,
                                      blank, reduction)  # fmt: skip
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-11)
    ym.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(lm.grad.numpy(), lt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_impossible_alignments_match_pytorch_with_and_without_zero_infinity():
    logits = np.random.default_rng(2).standard_normal((4, 2, 4))
    for zero_infinity in (False, True):
        args = ([1, 2, 3, 3, 3], [4, 4], [2, 3])
        ym = F.ctc_loss(mg.tensor(logits).log_softmax(2), mg.tensor(args[0]), *args[1:],
                        reduction="none", zero_infinity=zero_infinity)  # fmt: skip
        yt = torch.nn.functional.ctc_loss(torch.tensor(logits).log_softmax(2),
                                          torch.tensor(args[0]), *args[1:], reduction="none",
                                          zero_infinity=zero_infinity)  # fmt: skip
        np.testing.assert_allclose(ym.numpy(), yt.numpy(), rtol=1e-12)
    assert repr(mg.nn.CTCLoss()) == repr(torch.nn.CTCLoss())
