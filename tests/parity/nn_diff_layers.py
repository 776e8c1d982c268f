"""Random configurations of normalization layers, recurrent layers, attention, Transformer layers,
embeddings, linear layers and activations for the nn differential test (``nn_diff``)."""

from __future__ import annotations

import numpy as np

from .nn_diff import Case, Packed, T
from .nn_diff_conv import dtype


def _n(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def batch_norm(rng: np.random.Generator) -> Case:
    d = _n(rng, 1, 3)
    c = _n(rng, 1, 4)
    shape = (_n(rng, 2, 3), c, *(_n(rng, 1, 4) for _ in range(d - 1 if d == 1 else d)))
    if d == 1 and rng.random() < 0.5:
        shape = (_n(rng, 2, 4), c)
    kw = {
        "eps": float(rng.choice([1e-5, 0.1])),
        "momentum": rng.choice([0.1, 0.5, None]),
        "affine": bool(rng.random() < 0.7),
        "track_running_stats": bool(rng.random() < 0.7),
    }
    kw["momentum"] = None if kw["momentum"] is None else float(kw["momentum"])
    return Case(
        f"nn.BatchNorm{d}d",
        (c,),
        kw,
        [T(rng.standard_normal(shape))],
        dtype=dtype(rng),
        train=bool(rng.random() < 0.7),
    )


def instance_norm(rng: np.random.Generator) -> Case:
    d = _n(rng, 1, 3)
    c = _n(rng, 1, 3)
    spatial = tuple(_n(rng, 2, 4) for _ in range(d))
    shape = (c, *spatial) if rng.random() < 0.2 else (_n(rng, 1, 3), c, *spatial)
    kw = {
        "eps": float(rng.choice([1e-5, 0.1])),
        "momentum": float(rng.choice([0.1, 0.5])),
        "affine": bool(rng.random() < 0.5),
        "track_running_stats": bool(rng.random() < 0.5),
    }
    return Case(
        f"nn.InstanceNorm{d}d",
        (c,),
        kw,
        [T(rng.standard_normal(shape))],
        dtype=dtype(rng),
        train=bool(rng.random() < 0.7),
    )


def group_norm(rng: np.random.Generator) -> Case:
    g = _n(rng, 1, 3)
    c = g * _n(rng, 1, 3) + (1 if rng.random() < 0.05 else 0)
    shape = (_n(rng, 1, 3), c, *(_n(rng, 1, 3) for _ in range(_n(rng, 0, 2))))
    kw = {"eps": float(rng.choice([1e-5, 0.1])), "affine": bool(rng.random() < 0.7)}
    return Case("nn.GroupNorm", (g, c), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def layer_norm(rng: np.random.Generator) -> Case:
    shape = tuple(_n(rng, 1, 4) for _ in range(_n(rng, 1, 4)))
    k = _n(rng, 1, len(shape))
    norm = shape[-k:] if k > 1 or rng.random() < 0.5 else shape[-1]
    name = str(rng.choice(["LayerNorm", "RMSNorm"]))
    kw = {"eps": float(rng.choice([1e-5, 0.1])), "elementwise_affine": bool(rng.random() < 0.7)}
    if name == "LayerNorm":
        kw["bias"] = bool(rng.random() < 0.7)
    elif rng.random() < 0.3:
        kw["eps"] = None
    return Case(f"nn.{name}", (norm,), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def local_response_norm(rng: np.random.Generator) -> Case:
    shape = (_n(rng, 1, 2), _n(rng, 1, 6), *(_n(rng, 1, 3) for _ in range(_n(rng, 0, 3))))
    kw = {
        "alpha": float(rng.choice([1e-4, 0.5])),
        "beta": float(rng.choice([0.75, 1.5])),
        "k": float(rng.choice([1.0, 2.0])),
    }
    return Case(
        "nn.LocalResponseNorm",
        (_n(rng, 1, 5),),
        kw,
        [T(rng.standard_normal(shape))],
        dtype=dtype(rng),
    )


def rnn(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["RNN", "LSTM", "GRU"]))
    inp, hid = _n(rng, 1, 4), _n(rng, 1, 4)
    kw = {
        "num_layers": _n(rng, 1, 2),
        "bias": bool(rng.random() < 0.8),
        "batch_first": bool(rng.random() < 0.5),
        "bidirectional": bool(rng.random() < 0.5),
    }
    if name == "RNN":
        kw["nonlinearity"] = str(rng.choice(["tanh", "relu"]))
    if name == "LSTM" and rng.random() < 0.4:
        kw["proj_size"] = _n(rng, 1, hid) if hid > 1 else 0
    seq, batch = _n(rng, 1, 4), _n(rng, 1, 3)
    unbatched = rng.random() < 0.15
    shape = (
        (seq, inp) if unbatched else ((batch, seq, inp) if kw["batch_first"] else (seq, batch, inp))
    )
    x = T(rng.standard_normal(shape))
    dirs = 2 if kw["bidirectional"] else 1
    hout = kw.get("proj_size") or hid
    inputs: list = [x]
    if not unbatched and rng.random() < 0.3:
        lengths = sorted((_n(rng, 1, seq) for _ in range(batch)), reverse=True)
        lengths[0] = seq
        ordered = rng.random() < 0.5
        if not ordered:
            lengths = list(rng.permutation(lengths).tolist())
        inputs = [Packed(x, lengths, kw["batch_first"], ordered)]
    if rng.random() < 0.5:
        hshape = (kw["num_layers"] * dirs, *(() if unbatched else (batch,)))
        h0 = T(rng.standard_normal((*hshape, hout)))
        inputs.append((h0, T(rng.standard_normal((*hshape, hid)))) if name == "LSTM" else h0)
    return Case(f"nn.{name}", (inp, hid), kw, inputs, dtype=dtype(rng))


def rnn_cell(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["RNNCell", "LSTMCell", "GRUCell"]))
    inp, hid = _n(rng, 1, 4), _n(rng, 1, 4)
    kw = {"bias": bool(rng.random() < 0.8)}
    if name == "RNNCell":
        kw["nonlinearity"] = str(rng.choice(["tanh", "relu"]))
    unbatched = rng.random() < 0.2
    b = () if unbatched else (_n(rng, 1, 3),)
    inputs: list = [T(rng.standard_normal((*b, inp)))]
    if rng.random() < 0.6:
        h = T(rng.standard_normal((*b, hid)))
        inputs.append((h, T(rng.standard_normal((*b, hid)))) if name == "LSTMCell" else h)
    return Case(f"nn.{name}", (inp, hid), kw, inputs, dtype=dtype(rng))


def _mask(rng, shape, kind):
    if kind == "bool":
        m = rng.random(shape) < 0.3
        m[..., 0] = False  # keep one key per row, so no row is all masked (NaN in both)
        return T(m, "bool", False)
    return T(rng.standard_normal(shape), "float", False)


def multihead_attention(rng: np.random.Generator) -> Case:
    heads = _n(rng, 1, 3)
    e = heads * _n(rng, 1, 3)
    kw = {
        "bias": bool(rng.random() < 0.8),
        "add_bias_kv": bool(rng.random() < 0.2),
        "add_zero_attn": bool(rng.random() < 0.2),
        "batch_first": bool(rng.random() < 0.5),
    }
    if rng.random() < 0.4:
        kw["kdim"], kw["vdim"] = _n(rng, 1, 4), _n(rng, 1, 4)
    L, S, N = _n(rng, 1, 4), _n(rng, 1, 4), _n(rng, 1, 3)
    unbatched = rng.random() < 0.15

    def shape(n, d):
        if unbatched:
            return (n, d)
        return (N, n, d) if kw["batch_first"] else (n, N, d)

    q = T(rng.standard_normal(shape(L, e)))
    k = T(rng.standard_normal(shape(S, kw.get("kdim", e))))
    v = T(rng.standard_normal(shape(S, kw.get("vdim", e))))
    call: dict = {
        "need_weights": bool(rng.random() < 0.7),
        "average_attn_weights": bool(rng.random() < 0.5),
    }
    s_total = S + kw["add_bias_kv"] + kw["add_zero_attn"]
    if rng.random() < 0.4 and not unbatched:
        kpm = rng.random((N, S)) < 0.3
        kpm[:, 0] = False
        call["key_padding_mask"] = T(kpm, "bool", False)
    if rng.random() < 0.4:
        mshape = (L, S) if rng.random() < 0.7 or unbatched else (N * heads, L, S)
        call["attn_mask"] = _mask(rng, mshape, str(rng.choice(["bool", "float"])))
    del s_total
    return Case("nn.MultiheadAttention", (e, heads), kw, [q, k, v], call, dtype=dtype(rng))


def transformer_layer(rng: np.random.Generator) -> Case:
    heads = _n(rng, 1, 2)
    e = heads * _n(rng, 1, 3)
    name = str(rng.choice(["TransformerEncoderLayer", "TransformerDecoderLayer"]))
    kw = {
        "dim_feedforward": _n(rng, 1, 6),
        "dropout": 0.0,
        "activation": str(rng.choice(["relu", "gelu"])),
        "batch_first": bool(rng.random() < 0.5),
        "norm_first": bool(rng.random() < 0.5),
        "bias": bool(rng.random() < 0.8),
        "layer_norm_eps": float(rng.choice([1e-5, 1e-2])),
    }
    L, S, N = _n(rng, 1, 4), _n(rng, 1, 4), _n(rng, 1, 2)
    shape = (lambda n: (N, n, e)) if kw["batch_first"] else (lambda n: (n, N, e))
    inputs = [T(rng.standard_normal(shape(L)))]
    call: dict = {}
    if name == "TransformerDecoderLayer":
        inputs.append(T(rng.standard_normal(shape(S))))
        if rng.random() < 0.3:
            call["tgt_is_causal"] = False
    if rng.random() < 0.4:
        call["src_mask" if name.startswith("TransformerE") else "tgt_mask"] = _mask(
            rng, (L, L), str(rng.choice(["bool", "float"]))
        )
    if rng.random() < 0.3:
        kpm = rng.random((N, L)) < 0.3
        kpm[:, 0] = False
        key = "src_key_padding_mask" if name.startswith("TransformerE") else "tgt_key_padding_mask"
        call[key] = T(kpm, "bool", False)
    return Case(f"nn.{name}", (e, heads), kw, inputs, call, dtype=dtype(rng), train=False)


def embedding(rng: np.random.Generator) -> Case:
    num, dim = _n(rng, 2, 6), _n(rng, 1, 4)
    kw: dict = {}
    if rng.random() < 0.4:
        kw["padding_idx"] = int(rng.integers(-num, num))
    if rng.random() < 0.2:
        kw["scale_grad_by_freq"] = True
    if rng.random() < 0.2:
        kw["max_norm"] = float(rng.choice([0.5, 1.0]))
        kw["norm_type"] = float(rng.choice([1.0, 2.0]))
    shape = tuple(_n(rng, 1, 4) for _ in range(_n(rng, 0, 2)))
    idx = rng.integers(0, num + (1 if rng.random() < 0.05 else 0), shape)
    return Case("nn.Embedding", (num, dim), kw, [T(idx, "long", False)], dtype=dtype(rng))


def embedding_bag(rng: np.random.Generator) -> Case:
    """nn.EmbeddingBag over a 2-d input (one bag per row) or a 1-d input with offsets."""
    num, dim = _n(rng, 2, 6), _n(rng, 1, 4)
    mode = str(rng.choice(["sum", "mean", "max"]))
    kw: dict = {"mode": mode}
    if rng.random() < 0.3:
        kw["padding_idx"] = int(rng.integers(0, num))
    call: dict = {}
    if rng.random() < 0.5:
        idx = rng.integers(0, num, (_n(rng, 1, 3), _n(rng, 1, 4)))
    else:
        idx = rng.integers(0, num, _n(rng, 1, 6))
        cuts = np.sort(rng.integers(0, idx.size + 1, _n(rng, 1, 3)))
        cuts[0] = 0  # the first bag starts at 0
        kw["include_last_offset"] = bool(rng.random() < 0.3)
        if kw["include_last_offset"]:
            # the last offset closes the last bag (PyTorch 2.13 dies, a segmentation fault, on a
            # single offset with include_last_offset: zero bags)
            cuts = np.append(cuts, idx.size)
        call["offsets"] = T(cuts, "long", False)
    if mode == "sum" and rng.random() < 0.4:
        call["per_sample_weights"] = T(rng.standard_normal(idx.shape))
    return Case("nn.EmbeddingBag", (num, dim), kw, [T(idx, "long", False)], call, dtype=dtype(rng))


def linear(rng: np.random.Generator) -> Case:
    lead = tuple(_n(rng, 1, 3) for _ in range(_n(rng, 0, 2)))
    i, o = _n(rng, 1, 4), _n(rng, 1, 4)
    if rng.random() < 0.5:
        return Case(
            "nn.Linear",
            (i, o),
            {"bias": bool(rng.random() < 0.7)},
            [T(rng.standard_normal((*lead, i)))],
            dtype=dtype(rng),
        )
    j = _n(rng, 1, 3)
    return Case(
        "nn.Bilinear",
        (i, j, o),
        {"bias": bool(rng.random() < 0.7)},
        [T(rng.standard_normal((*lead, i))), T(rng.standard_normal((*lead, j)))],
        dtype=dtype(rng),
    )


ACTIVATIONS = {
    "ELU": lambda r: {"alpha": float(r.choice([1.0, 0.5, 2.0]))},
    "CELU": lambda r: {"alpha": float(r.choice([1.0, 0.5, 2.0]))},
    "SELU": lambda r: {},
    "GELU": lambda r: {"approximate": str(r.choice(["none", "tanh"]))},
    "GLU": lambda r: {"dim": int(r.integers(-2, 2))},
    "Hardshrink": lambda r: {"lambd": float(r.choice([0.5, 1.0]))},
    "Softshrink": lambda r: {"lambd": float(r.choice([0.5, 1.0]))},
    "Hardsigmoid": lambda r: {},
    "Hardswish": lambda r: {},
    "Hardtanh": lambda r: {
        "min_val": float(r.choice([-1.0, -0.5])),
        "max_val": float(r.choice([1.0, 2.0])),
    },
    "ReLU6": lambda r: {},
    "LeakyReLU": lambda r: {"negative_slope": float(r.choice([0.01, 0.3, -0.5]))},
    "LogSigmoid": lambda r: {},
    "Mish": lambda r: {},
    "PReLU": lambda r: {
        "num_parameters": int(r.choice([1, 2])),
        "init": float(r.choice([0.25, -0.1])),
    },
    "ReLU": lambda r: {},
    "RReLU": lambda r: {"lower": 0.1, "upper": 0.3},
    "SiLU": lambda r: {},
    "Sigmoid": lambda r: {},
    "Softplus": lambda r: {
        "beta": float(r.choice([1.0, 2.0, 0.5])),
        "threshold": float(r.choice([20.0, 1.0])),
    },
    "Softsign": lambda r: {},
    "Tanh": lambda r: {},
    "Tanhshrink": lambda r: {},
    "Threshold": lambda r: {
        "threshold": float(r.choice([0.1, -0.5])),
        "value": float(r.choice([0.0, 3.0])),
    },
    "Softmax": lambda r: {"dim": int(r.integers(-2, 2))},
    "Softmin": lambda r: {"dim": int(r.integers(-2, 2))},
    "LogSoftmax": lambda r: {"dim": int(r.integers(-2, 2))},
    "Softmax2d": lambda r: {},
    "Flatten": lambda r: {"start_dim": int(r.integers(0, 2)), "end_dim": int(r.integers(-1, 2))},
    "Identity": lambda r: {},
    "CosineSimilarity": lambda r: {"dim": int(r.integers(-1, 2)), "eps": 1e-8},
    "PairwiseDistance": lambda r: {
        "p": float(r.choice([1.0, 2.0, 3.0])),
        "keepdim": bool(r.random() < 0.5),
    },
}


def activation(rng: np.random.Generator) -> Case:
    name = str(rng.choice(sorted(ACTIVATIONS)))
    kw = ACTIVATIONS[name](rng)
    shape = tuple(_n(rng, 2, 4) for _ in range(_n(rng, 2, 4)))
    if name == "Softmax2d":
        shape = shape[:4] if len(shape) >= 3 else (2, *shape)
    if name == "PReLU" and kw["num_parameters"] > 1:
        shape = (shape[0], kw["num_parameters"], *shape[2:])
    # keep inputs off the kinks (|x| near a threshold) where a one-sided derivative is arbitrary
    x = rng.standard_normal(shape) * 2
    for kink in (0.0, 0.5, 1.0, -1.0, 0.1, -0.5, 2.0, -3.0, 3.0, 6.0):
        x = np.where(np.abs(x - kink) < 1e-3, x + 0.01, x)
    inputs = [T(x)]
    if name in ("CosineSimilarity", "PairwiseDistance"):
        inputs.append(T(rng.standard_normal(shape)))
    train = name != "RReLU"
    if name in INPLACE and rng.random() < 0.3:
        if rng.random() < 0.3:  # in place on a leaf that requires grad: both must refuse
            return Case(f"nn.{name}", (), {**kw, "inplace": True}, inputs, dtype=dtype(rng))
        # in place on an intermediate result: the output, the written tensor and the gradient
        return Case("X.inplace_activation", (name, kw), {}, inputs, dtype=dtype(rng))
    return Case(f"nn.{name}", (), kw, inputs, dtype=dtype(rng), train=train)


# the activations with an ``inplace`` argument
INPLACE = ("ELU", "CELU", "SELU", "Hardsigmoid", "Hardswish", "Hardtanh", "ReLU6", "LeakyReLU",
           "Mish", "ReLU", "SiLU", "Threshold")  # fmt: skip


GENERATORS = {
    "batch_norm": batch_norm,
    "instance_norm": instance_norm,
    "group_norm": group_norm,
    "layer_norm": layer_norm,
    "local_response_norm": local_response_norm,
    "rnn": rnn,
    "rnn_cell": rnn_cell,
    "multihead_attention": multihead_attention,
    "transformer_layer": transformer_layer,
    "embedding": embedding,
    "embedding_bag": embedding_bag,
    "linear": linear,
    "activation": activation,
}


def transformer(rng: np.random.Generator) -> Case:
    """A whole nn.Transformer, or a TransformerEncoder / TransformerDecoder stack."""
    heads = _n(rng, 1, 2)
    e = heads * _n(rng, 1, 2)
    batch_first = bool(rng.random() < 0.5)
    L, S, N = _n(rng, 1, 3), _n(rng, 1, 3), _n(rng, 1, 2)
    shape = (lambda n: (N, n, e)) if batch_first else (lambda n: (n, N, e))
    kw = {
        "dim_feedforward": _n(rng, 1, 4),
        "dropout": 0.0,
        "batch_first": batch_first,
        "norm_first": bool(rng.random() < 0.5),
        "activation": str(rng.choice(["relu", "gelu"])),
    }
    call: dict = {}
    if rng.random() < 0.4:
        call["tgt_mask"] = _mask(rng, (L, L), "float")
    if rng.random() < 0.3:
        kpm = rng.random((N, S)) < 0.3
        kpm[:, 0] = False
        call["src_key_padding_mask"] = T(kpm, "bool", False)
        call["memory_key_padding_mask"] = T(kpm, "bool", False)
    return Case(
        "nn.Transformer",
        (),
        {
            "d_model": e,
            "nhead": heads,
            "num_encoder_layers": _n(rng, 1, 2),
            "num_decoder_layers": _n(rng, 1, 2),
            **kw,
        },
        [T(rng.standard_normal(shape(S))), T(rng.standard_normal(shape(L)))],
        call,
        dtype=dtype(rng),
        train=bool(rng.random() < 0.5),
    )


def dropout_eval(rng: np.random.Generator) -> Case:
    """Dropout layers are the identity in eval mode and with p=0 in training."""
    name = str(
        rng.choice(
            [
                "Dropout",
                "Dropout1d",
                "Dropout2d",
                "Dropout3d",
                "AlphaDropout",
                "FeatureAlphaDropout",
            ]
        )
    )
    nd = {"Dropout1d": 3, "Dropout2d": 4, "Dropout3d": 5}.get(name, _n(rng, 1, 4))
    train = bool(rng.random() < 0.5)
    shape = tuple(_n(rng, 1, 3) for _ in range(nd))
    return Case(
        f"nn.{name}",
        (0.0 if train else 0.5,),
        {},
        [T(rng.standard_normal(shape))],
        dtype=dtype(rng),
        train=train,
    )


def shape_layers(rng: np.random.Generator) -> Case:
    shape = tuple(_n(rng, 1, 4) for _ in range(_n(rng, 1, 4)))
    x = [T(rng.standard_normal(shape))]
    if rng.random() < 0.5:
        d = int(rng.integers(-len(shape), len(shape)))
        size = shape[d]
        split = (1, size) if rng.random() < 0.5 else (size, 1)
        if rng.random() < 0.1:
            split = (size + 1, 1)  # wrong product: must raise
        return Case("nn.Unflatten", (d, split), {}, x, dtype=dtype(rng))
    return Case(
        "nn.Flatten",
        (int(rng.integers(-len(shape), len(shape))), int(rng.integers(-len(shape), len(shape)))),
        {},
        x,
        dtype=dtype(rng),
    )


GENERATORS.update(
    {"transformer": transformer, "dropout_eval": dropout_eval, "shape_layers": shape_layers}
)
