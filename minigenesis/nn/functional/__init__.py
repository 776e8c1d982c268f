"""The functional forms of the layers and losses: ``import minigenesis.nn.functional as F``.

Every ``F.*`` function is defined in this package, one file per family, mirroring ``ops/``; this
file gathers them so that ``F.relu``, ``F.conv2d`` and ``F.cross_entropy`` are one namespace, as
in PyTorch. A function checks its arguments, names what is wrong when they do not fit, and calls
the differentiable ops of ``ops/`` (an op class holds one forward and its backward); the layers of
``nn/`` hold parameters and options and call these functions. The files follow the course: linear
maps and activations, dropout, normalisation, embeddings, losses, convolution and pooling,
interpolation and padding, distances, pixel shuffles, attention.
"""

from .linear_maps import bilinear, linear
from .activations import (
    SELU_ALPHA,
    SELU_SCALE,
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu_,
    relu6,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
    gumbel_softmax,
)
from .dropouts import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from .normalization import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    rms_norm,
)
from .embedding_bag import embedding_bag
from .embeddings import embedding, one_hot
from .losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .conv import conv1d, conv2d, conv_transpose1d, conv_transpose2d
from .pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
)
from .interpolation import interpolate, upsample, upsample_bilinear, upsample_nearest
from .padding import pad
from .distance import cosine_similarity, normalize, pairwise_distance, pdist
from .pixelshuffle import channel_shuffle, pixel_shuffle, pixel_unshuffle
from .attention import scaled_dot_product_attention
from .multi_head_attention import multi_head_attention_forward
from .conv3d import conv3d, conv_transpose3d
from .pool3d import avg_pool3d, max_pool3d
from .unpool import max_unpool1d, max_unpool2d, max_unpool3d
from .margin_losses import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .likelihood_losses import gaussian_nll_loss, poisson_nll_loss
from .adaptive_pool3d import adaptive_avg_pool3d, adaptive_max_pool3d
from .fold import fold, unfold
from .lp_pool import lp_pool1d, lp_pool2d, lp_pool3d
from .ctc import ctc_loss
from .pool_indices import (
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
)
from .fractional_pool import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .grid_sample import affine_grid, grid_sample
