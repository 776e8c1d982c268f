"""``print(model)`` shows what PyTorch shows, for the common layers and containers."""

import warnings

import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _layers(lib):
    nn = lib.nn
    return {
        "linear": lambda: nn.Linear(3, 4),
        "linear_no_bias": lambda: nn.Linear(3, 4, bias=False),
        "conv1d": lambda: nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False),
        "conv2d": lambda: nn.Conv2d(3, 8, (3, 5), padding="same"),
        "conv2d_reflect": lambda: nn.Conv2d(3, 8, 3, padding=1, padding_mode="reflect"),
        "conv_transpose2d": lambda: nn.ConvTranspose2d(3, 8, 3, stride=2, output_padding=1),
        "conv2d_valid": lambda: nn.Conv2d(3, 8, 3, padding="valid"),
        "conv1d_same_circular": lambda: nn.Conv1d(2, 4, 4, padding="same", padding_mode="circular"),
        "conv_transpose2d_dilated": lambda: nn.ConvTranspose2d(
            2, 4, 3, stride=2, padding=1, output_padding=1, dilation=2, groups=2
        ),
        "conv_transpose1d": lambda: nn.ConvTranspose1d(2, 4, 3, output_padding=0, bias=False),
        "lstm": lambda: nn.LSTM(4, 5, num_layers=2, dropout=0.1, bidirectional=True),
        "gru": lambda: nn.GRU(4, 5, bias=False, batch_first=True),
        "rnn_relu": lambda: nn.RNN(4, 5, nonlinearity="relu"),
        "lstm_cell": lambda: nn.LSTMCell(4, 5),
        "rnn_cell": lambda: nn.RNNCell(4, 5, nonlinearity="relu"),
        "dropout": lambda: nn.Dropout(0.2, inplace=True),
        "layer_norm": lambda: nn.LayerNorm([4, 5], elementwise_affine=False),
        "layer_norm_no_bias": lambda: nn.LayerNorm(4, bias=False),
        "rms_norm": lambda: nn.RMSNorm(4),
        "group_norm": lambda: nn.GroupNorm(2, 4),
        "batch_norm1d": lambda: nn.BatchNorm1d(4, affine=False),
        "batch_norm2d": lambda: nn.BatchNorm2d(4, momentum=None),
        "embedding": lambda: nn.Embedding(10, 3, padding_idx=0),
        "embedding_max_norm": lambda: nn.Embedding(10, 3, max_norm=1.0),
        "activations": lambda: nn.Sequential(
            nn.ReLU(inplace=True),
            nn.LeakyReLU(0.2),
            nn.GELU("tanh"),
            nn.Softmax(dim=1),
            nn.LogSoftmax(dim=-1),
            nn.Sigmoid(),
            nn.Tanh(),
            nn.SiLU(),
            nn.ELU(),
            nn.Softplus(),
        ),  # fmt: skip
        "shape_layers": lambda: nn.Sequential(nn.Identity(), nn.Flatten(), nn.Unflatten(1, (2, 3))),
        "pooling": lambda: nn.Sequential(
            nn.MaxPool2d(2), nn.AvgPool2d(2), nn.AdaptiveAvgPool2d((1, 1))
        ),
        "pooling_1d_and_options": lambda: nn.Sequential(
            nn.MaxPool1d(3, 2, 1, dilation=2, ceil_mode=True),
            nn.AvgPool1d(3, padding=1, ceil_mode=True, count_include_pad=False),
            nn.AvgPool2d((2, 3), stride=1, padding=1, divisor_override=4),
            nn.AdaptiveAvgPool1d(5),
            nn.AdaptiveMaxPool1d(4, return_indices=True),
            nn.AdaptiveMaxPool2d((None, 3)),
        ),
        "losses": lambda: nn.Sequential(
            nn.MSELoss(),
            nn.CrossEntropyLoss(label_smoothing=0.1),
            nn.BCEWithLogitsLoss(),
            nn.NLLLoss(),
            nn.L1Loss(),
            nn.HuberLoss(),
            nn.SmoothL1Loss(),
        ),  # fmt: skip
        "multihead_attention": lambda: nn.MultiheadAttention(8, 2, batch_first=True),
        "encoder_layer": lambda: nn.TransformerEncoderLayer(8, 2, 16, norm_first=True),
        "encoder": lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2),
        "decoder_layer": lambda: nn.TransformerDecoderLayer(8, 2, 16),
        "transformer": lambda: nn.Transformer(8, 2, 2, 1, 16),
        "nested_sequential": lambda: nn.Sequential(
            nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 2)), nn.Linear(2, 2)
        ),
        "module_list_runs": lambda: nn.ModuleList(
            [nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.Linear(2, 3)]
        ),
        "module_list_empty": lambda: nn.ModuleList(),
        "module_dict": lambda: nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()}),
        "empty_sequential": lambda: nn.Sequential(),
    }


NAMES = list(_layers(mg))


@pytest.mark.parametrize("name", NAMES)
def test_module_prints_as_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor advice for the encoder
        assert repr(_layers(mg)[name]()) == repr(_layers(torch)[name]())


def test_a_custom_model_with_repeated_blocks_prints_as_torch():
    def make(lib):
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 3)
                self.blocks = nn.ModuleList(
                    [nn.Sequential(nn.Linear(3, 3), nn.GELU()) for _ in range(3)]
                )
                self.register_buffer("steps", lib.zeros(2))

        return Net()

    assert repr(make(mg)) == repr(make(torch))
    assert "(0-2): 3 x Sequential(" in repr(make(mg))
