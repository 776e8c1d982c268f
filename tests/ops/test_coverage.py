"""Every public computing op has an entry in the op database (or a reason, below, why not).

The public names are read off the package (``public_api.py``): mg.* functions, Tensor methods,
nn.functional, mg.linalg, mg.special, the distributions' methods. A new op without an entry
fails here; so does a name in the lists below that no longer exists or that has gained an entry.
"""

from __future__ import annotations

from .database import ENTRIES
from .public_api import covered_names, public_names

# Not ops on tensor values: checked by their own tests (creation, random draws, dtype casts ...)
NOT_COMPUTING = {
    # making tensors, random draws and dropout in training (values are draws, not functions of
    # the input: tests/core/test_random_draws.py, tests/nn; F.dropout at p = 0 / eval has one)
    "creation and random": """
    arange as_tensor empty empty_like empty_strided eye from_numpy full full_like linspace
    logspace ones ones_like rand rand_like randint randint_like randn randn_like randperm
    tensor zeros zeros_like tril_indices triu_indices normal poisson bernoulli multinomial
    binomial
    Tensor.new_empty Tensor.new_full Tensor.new_ones Tensor.new_tensor Tensor.new_zeros
    Tensor.bernoulli Tensor.bernoulli_ Tensor.cauchy_ Tensor.exponential_ Tensor.geometric_
    Tensor.log_normal_ Tensor.normal_ Tensor.random_ Tensor.uniform_ Tensor.multinomial
    F.dropout1d F.dropout2d F.dropout3d F.alpha_dropout F.feature_alpha_dropout
    F.rrelu F.gumbel_softmax
""",
    # the library's settings, I/O and predicates on types
    "settings and I/O": """
    compile get_array_module get_autocast_dtype get_default_device get_default_dtype
    get_float32_matmul_precision get_num_interop_threads get_num_threads get_printoptions
    get_rng_state initial_seed install_package_module_class is_autocast_enabled
    is_grad_enabled is_inference_mode_enabled manual_seed printoptions seed
    set_default_device set_default_dtype set_float32_matmul_precision
    set_num_interop_threads set_num_threads set_printoptions set_rng_state load
    load_checkpoint save save_checkpoint special.get_array_module promote_types is_tensor
    is_complex is_floating_point numel result_type broadcast_shapes
    use_deterministic_algorithms are_deterministic_algorithms_enabled
    is_deterministic_algorithms_warn_only_enabled set_deterministic_debug_mode
    get_deterministic_debug_mode
    get_autocast_cpu_dtype get_autocast_gpu_dtype is_autocast_cpu_enabled is_anomaly_enabled
    set_anomaly_enabled is_warn_always_enabled set_warn_always set_default_tensor_type
    set_flush_denormal can_cast typename is_storage
""",
    # the Tensor's own API: autograd, devices, dtype casts, sizes, conversions out of the tensor
    "tensor API": """
    Tensor.backward Tensor.bfloat16 Tensor.bool Tensor.cpu Tensor.cuda Tensor.detach
    Tensor.detach_ Tensor.dim Tensor.double Tensor.element_size Tensor.float Tensor.half
    Tensor.int Tensor.long Tensor.short Tensor.char Tensor.byte Tensor.is_complex
    Tensor.is_contiguous
    Tensor.is_floating_point Tensor.is_inference Tensor.item Tensor.nelement Tensor.numel
    Tensor.numpy Tensor.register_hook Tensor.register_post_accumulate_grad_hook
    Tensor.requires_grad_ Tensor.retain_grad Tensor.size Tensor.to Tensor.tolist Tensor.type
    Tensor.type_as Tensor.contiguous Tensor.stride detach
    Tensor.is_shared Tensor.share_memory_ Tensor.to_dense Tensor.to_sparse sparse_coo_tensor
    Tensor.sparse_mask
    Tensor.resize_ Tensor.squeeze_ Tensor.unsqueeze_ Tensor.t_ Tensor.transpose_
    Tensor.as_strided_ as_strided_
    Tensor.data_ptr Tensor.storage Tensor.storage_offset Tensor.untyped_storage
    Tensor.apply_ Tensor.map_
    Tensor.const_data_ptr Tensor.dense_dim Tensor.sparse_dim Tensor.dim_order Tensor.ndimension
    Tensor.get_device get_device Tensor.is_pinned Tensor.pin_memory Tensor.is_set_to
    Tensor.to_sparse_coo Tensor.resize_as_ resize_as_ detach_ is_inference
""",
    # facts about a tensor's dtype, flags and shape, not functions of its values
    # (tests/core/test_tensor_aliases.py, tests/core/test_top_level_names.py); a real tensor
    # has no imaginary part: imag raises, as PyTorch's
    "predicates on a tensor": """
    Tensor.is_conj is_conj Tensor.is_neg is_neg Tensor.is_signed is_signed
    Tensor.is_same_size is_same_size Tensor.is_nonzero is_nonzero imag
""",
    # tensors made from memory another object owns or from nothing (uninitialized): no input
    # values to compute from (tests/core/test_top_level_names.py checks the sharing)
    "made from memory": """
    asarray frombuffer from_dlpack to_dlpack empty_permuted Tensor.new Tensor.new_empty_strided
""",
    # a distribution's draws (random: tests/distributions checks their law; the straight-through
    # gradient, not a derivative by design, is checked there too), its parameters
    # broadcast to a batch (expand) and its bookkeeping (shapes, flags, constraint objects);
    # register_kl files a function
    "distributions": """
    distributions.register_kl distributions.Uniform.arg_constraints
    distributions.Bernoulli.sample distributions.Beta.sample distributions.Categorical.sample
    distributions.Gamma.sample distributions.Independent.sample
    distributions.OneHotCategorical.sample
    distributions.Bernoulli.expand distributions.Beta.expand distributions.Categorical.expand
    distributions.Exponential.expand distributions.Gamma.expand distributions.Independent.expand
    distributions.Laplace.expand distributions.MultivariateNormal.expand
    distributions.Normal.expand distributions.OneHotCategorical.expand
    distributions.Uniform.expand
    distributions.Bernoulli.param_shape distributions.Categorical.param_shape
    distributions.OneHotCategorical.param_shape distributions.Independent.has_enumerate_support
    distributions.Independent.has_rsample distributions.Categorical.support
    distributions.Independent.support distributions.Uniform.support
    distributions.MixtureSameFamily.sample distributions.MixtureSameFamily.expand
    distributions.MixtureSameFamily.support distributions.MixtureSameFamily.mixture_distribution
    distributions.MixtureSameFamily.component_distribution
    distributions.Chi2.sample distributions.Geometric.sample distributions.Gumbel.sample
    distributions.HalfCauchy.sample distributions.HalfNormal.sample distributions.LogNormal.sample
    distributions.Poisson.sample distributions.StudentT.sample
    distributions.TransformedDistribution.sample
    distributions.Cauchy.expand distributions.Chi2.expand distributions.Geometric.expand
    distributions.Gumbel.expand distributions.HalfCauchy.expand distributions.HalfNormal.expand
    distributions.LogNormal.expand distributions.Poisson.expand distributions.StudentT.expand
    distributions.TransformedDistribution.expand
    distributions.Gumbel.has_rsample distributions.HalfCauchy.has_rsample
    distributions.HalfNormal.has_rsample distributions.LogNormal.has_rsample
    distributions.TransformedDistribution.has_rsample distributions.Gumbel.support
    distributions.HalfCauchy.support distributions.HalfNormal.support
    distributions.LogNormal.support distributions.TransformedDistribution.support
    distributions.LogNormal.loc distributions.LogNormal.scale distributions.HalfNormal.scale
    distributions.HalfCauchy.scale
    distributions.Weibull.sample distributions.Pareto.sample distributions.InverseGamma.sample
    distributions.Dirichlet.sample distributions.Weibull.expand distributions.Pareto.expand
    distributions.InverseGamma.expand distributions.Dirichlet.expand
    distributions.Weibull.has_rsample distributions.Pareto.has_rsample
    distributions.InverseGamma.has_rsample distributions.Weibull.support
    distributions.Pareto.support distributions.InverseGamma.support
    distributions.InverseGamma.concentration distributions.InverseGamma.rate
    distributions.Binomial.sample distributions.Binomial.expand distributions.Binomial.support
    distributions.NegativeBinomial.sample distributions.NegativeBinomial.expand
    distributions.OneHotCategoricalStraightThrough.sample
    distributions.OneHotCategoricalStraightThrough.expand
    distributions.OneHotCategoricalStraightThrough.param_shape
    distributions.OneHotCategoricalStraightThrough.rsample
    distributions.RelaxedBernoulli.expand distributions.FisherSnedecor.expand
    distributions.FisherSnedecor.sample distributions.Multinomial.sample
    distributions.Multinomial.expand distributions.Multinomial.support
    distributions.Multinomial.param_shape
    distributions.RelaxedBernoulli.sample distributions.RelaxedBernoulli.has_rsample
    distributions.RelaxedBernoulli.support distributions.RelaxedBernoulli.temperature
    distributions.LKJCholesky.sample distributions.LKJCholesky.expand
    distributions.Wishart.rsample distributions.Wishart.expand distributions.Wishart.arg_constraints
""",
    # draws differentiated implicitly through the Gamma CDF, not the sampler's derivative at a
    # fixed seed: tests/distributions/test_gamma_rsample.py and test_rsample_from_gamma.py
    # check them
    "implicit reparameterisation": """
    distributions.Gamma.rsample distributions.Chi2.rsample distributions.InverseGamma.rsample
    distributions.Beta.rsample distributions.Dirichlet.rsample distributions.StudentT.rsample
    distributions.FisherSnedecor.rsample
""",
    # raise NotImplementedError: InverseGamma's icdf (Gamma's: no inverse incomplete gamma
    # here); as PyTorch's: the
    # exponential-family entropy where the carrier measure's mean has no closed form (Poisson)
    # or on the abstract base itself
    "distributions without the formula": """
    distributions.Poisson.entropy distributions.Poisson.perplexity
    distributions.InverseGamma.icdf
    distributions.RelaxedBernoulli.cdf distributions.RelaxedBernoulli.icdf
    distributions.ExponentialFamily.entropy distributions.ExponentialFamily.perplexity
""",
}

# Computing ops without an entry yet: the database grows family by family (pointwise, binary,
# reductions first). Each one added to the database is removed from this list.
# (ContinuousBernoulli, GeneralizedPareto, Kumaraswamy, LogisticNormal, LowRankMultivariateNormal,
# RelaxedOneHotCategorical, VonMises and Multinomial.entropy: checked against NumPy closed forms
# and quadrature in tests/distributions/test_new_families.py, not in the database yet; Gamma's,
# Chi2's and InverseGamma's cdf, the regularized incomplete gamma function: against closed forms
# in tests/distributions/test_distribution_boundary_values.py. svd_lowrank and pca_lowrank draw a
# random basis, so their factors are checked by what they reconstruct, against NumPy's exact SVD,
# in tests/core/test_lowrank.py. Wishart's and LKJCholesky's densities and moments: against
# closed forms, the 1 x 1 Gamma case, Monte Carlo and float64 central differences in
# tests/distributions/test_wishart.py and test_lkj_cholesky.py. F.multi_head_attention_forward
# (nn.MultiheadAttention's computation on passed weights): against a NumPy reference, the module
# and gradcheck in tests/nn/test_multi_head_attention_forward.py.)
NO_ENTRY_YET = """
pca_lowrank svd_lowrank F.multi_head_attention_forward
distributions.LKJCholesky.log_prob
distributions.Wishart.covariance_matrix distributions.Wishart.entropy distributions.Wishart.log_prob
distributions.Wishart.mean distributions.Wishart.mode distributions.Wishart.perplexity
distributions.Wishart.precision_matrix distributions.Wishart.scale_tril
distributions.Wishart.stddev distributions.Wishart.variance
distributions.Gamma.cdf distributions.Chi2.cdf distributions.InverseGamma.cdf
distributions.ContinuousBernoulli.cdf distributions.ContinuousBernoulli.entropy
distributions.ContinuousBernoulli.expand distributions.ContinuousBernoulli.icdf
distributions.ContinuousBernoulli.log_prob distributions.ContinuousBernoulli.logits
distributions.ContinuousBernoulli.mean distributions.ContinuousBernoulli.param_shape
distributions.ContinuousBernoulli.perplexity distributions.ContinuousBernoulli.probs
distributions.ContinuousBernoulli.rsample distributions.ContinuousBernoulli.stddev
distributions.ContinuousBernoulli.variance distributions.GeneralizedPareto.cdf
distributions.GeneralizedPareto.entropy distributions.GeneralizedPareto.expand
distributions.GeneralizedPareto.icdf distributions.GeneralizedPareto.log_cdf
distributions.GeneralizedPareto.log_prob distributions.GeneralizedPareto.log_survival_function
distributions.GeneralizedPareto.mean distributions.GeneralizedPareto.mode
distributions.GeneralizedPareto.perplexity distributions.GeneralizedPareto.rsample
distributions.GeneralizedPareto.stddev distributions.GeneralizedPareto.support
distributions.GeneralizedPareto.variance distributions.Kumaraswamy.cdf
distributions.Kumaraswamy.entropy distributions.Kumaraswamy.expand
distributions.Kumaraswamy.has_rsample distributions.Kumaraswamy.icdf
distributions.Kumaraswamy.log_prob distributions.Kumaraswamy.mean distributions.Kumaraswamy.mode
distributions.Kumaraswamy.perplexity distributions.Kumaraswamy.rsample
distributions.Kumaraswamy.sample distributions.Kumaraswamy.stddev
distributions.Kumaraswamy.support distributions.Kumaraswamy.variance
distributions.LogisticNormal.cdf distributions.LogisticNormal.expand
distributions.LogisticNormal.has_rsample distributions.LogisticNormal.icdf
distributions.LogisticNormal.loc distributions.LogisticNormal.log_prob
distributions.LogisticNormal.rsample distributions.LogisticNormal.sample
distributions.LogisticNormal.scale distributions.LogisticNormal.support
distributions.LowRankMultivariateNormal.covariance_matrix
distributions.LowRankMultivariateNormal.entropy distributions.LowRankMultivariateNormal.expand
distributions.LowRankMultivariateNormal.log_prob distributions.LowRankMultivariateNormal.mean
distributions.LowRankMultivariateNormal.mode distributions.LowRankMultivariateNormal.perplexity
distributions.LowRankMultivariateNormal.precision_matrix
distributions.LowRankMultivariateNormal.rsample
distributions.LowRankMultivariateNormal.scale_tril
distributions.LowRankMultivariateNormal.stddev distributions.LowRankMultivariateNormal.variance
distributions.Multinomial.entropy distributions.Multinomial.perplexity
distributions.RelaxedOneHotCategorical.cdf distributions.RelaxedOneHotCategorical.expand
distributions.RelaxedOneHotCategorical.has_rsample distributions.RelaxedOneHotCategorical.icdf
distributions.RelaxedOneHotCategorical.log_prob distributions.RelaxedOneHotCategorical.logits
distributions.RelaxedOneHotCategorical.probs distributions.RelaxedOneHotCategorical.rsample
distributions.RelaxedOneHotCategorical.sample distributions.RelaxedOneHotCategorical.support
distributions.RelaxedOneHotCategorical.temperature distributions.VonMises.expand
distributions.VonMises.log_prob distributions.VonMises.mean distributions.VonMises.mode
distributions.VonMises.sample distributions.VonMises.stddev distributions.VonMises.variance
Tensor.polygamma_
"""


def _names(text: str) -> set[str]:
    return set(text.split())


def test_every_public_op_has_an_entry_or_a_reason() -> None:
    skipped = set().union(*map(_names, NOT_COMPUTING.values())) | _names(NO_ENTRY_YET)
    missing = public_names() - covered_names(ENTRIES) - skipped
    assert not missing, f"public ops without an entry in tests/ops: {sorted(missing)}"


def test_the_skip_lists_name_only_existing_ops_without_entries() -> None:
    skipped = set().union(*map(_names, NOT_COMPUTING.values())) | _names(NO_ENTRY_YET)
    assert not skipped - public_names(), f"not public ops: {sorted(skipped - public_names())}"
    stale = skipped & covered_names(ENTRIES)
    assert not stale, f"have an entry now, remove them from the skip lists: {sorted(stale)}"


def test_every_entry_names_a_public_op() -> None:
    unknown = covered_names(ENTRIES) - public_names()
    assert not unknown, f"entries for names the package does not have: {sorted(unknown)}"
