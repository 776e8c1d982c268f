"""256 PyTorch programs in the styles people write them (a DataLoader loop, a CNN with in-place
ReLUs, a char-GRU, a GCN over a sparse adjacency, a VAE, a transformer classifier, custom autograd
Functions, checkpoint and resume, a seq2seq GRU with attention and teacher forcing, a DCGAN, a
WGAN-GP, early stopping with ReduceLROnPlateau, a triplet-loss embedding, SimCLR's NT-Xent, a
mixture density network, Bayes by backprop, a RealNVP flow, a VQ-VAE, a PINN through
autograd.grad(create_graph=True), knowledge distillation, word2vec with sparse embeddings and
SparseAdam, an EmbeddingBag text classifier, a GAT, an LSTMCell forecaster, the char-RNN name
classifier tutorial, a U-Net with Dice loss, a small ResNet with augmentation, an advantage
actor-critic; a conditional DCGAN on 32x32 images, an LSTM encoder-decoder with Luong attention, a
convolutional VAE with the closed-form KL, nn.Transformer with its masks, a segmentation net with
F.interpolate and a confusion-matrix mIoU, a Siamese network with CosineEmbeddingLoss, CBOW with
negative sampling, the docs' custom Functions with gradgradcheck, 1-d CNN distillation with hints, a
variable-length data pipeline with ConcatDataset and WeightedRandomSampler, every container with
nn.init, accumulation under autocast, an exact resume with OneCycleLR, generator-driven
reproducibility, a top-2 mixture of experts; and after the official tutorials: Learning PyTorch with
Examples' polynomials with a custom Function, What is torch.nn really's refactoring steps,
torch.func's per-sample gradients and ensembling, autograd.functional, FGSM, a spatial transformer,
REINFORCE, style transfer with LBFGS on the image, pruning and parametrizations, hooks and global
switches, whole-module saving, a BiLSTM-CRF; then a DDPM on 2-d clusters, SWA and EMA
(AveragedModel, SWALR, update_bn, and timm's EMA by torch._foreach_lerp_), warmup then cosine by
SequentialLR, a nanoGPT with a tied head, DQN with a replay buffer and a target network, CTC on a
BiGRU, second-order MAML, an LSTM by hand against nn.LSTM, a tiny ViT, ESPCN with PixelShuffle,
mixup and CutMix, a focal loss on CSV text with ROC AUC, matrix factorisation, EM for a Gaussian
mixture, a Gumbel-softmax VAE, MADE, an RBM by contrastive divergence, activation checkpointing, an
LR range test, a streamed IterableDataset with a padding collate_fn, a TCN with weight_norm, a
heteroscedastic ensemble with GaussianNLLLoss and a Poisson GLM, uncertainty-weighted multi-task
learning, eleven optimizers on the Rosenbrock function, an orthogonal RNN, pseudo-labelling with MC
dropout, variational inference with Gamma.rsample; the 60-minute blitz's tensor tour with the NumPy
bridge, the polynomial warm-up four ways (NumPy, manual tensors, autograd, nn) giving equal
coefficients, PGD against FGSM, autograd mechanics (retain_graph, hooks, a gradient penalty against
finite differences), checkpoints with map_location and strict=False, a padding collate_fn with
num_workers=2, ModuleDict and ParameterList, nn.init through apply(), gradient clipping by value and
by norm against NumPy, seeded runs that repeat (get/set_rng_state, fork_rng), a bag-of-words
classifier by bincount and scatter_add_, indexing idioms against NumPy, the char-RNN tutorial's
manual parameter update with a confusion matrix, a frozen backbone with a new head and StepLR, and a
dict-sample Dataset with transform classes and random_split; then capsule routing, a neural ODE
through a hand-written RK4, PointNet with a permutation check, a hypernetwork, NeRF's positional
encoding and Fourier features, sparsemax by a custom Function inside a TabNet-like model, CLIP's
symmetric loss, DANN's gradient reversal, MobileNet/ShuffleNet blocks, a ConvLSTM, an energy-based
model sampled by Langevin dynamics, quantile regression, a neural Cox model with logcumsumexp and
the C-index, PCA and least squares five ways with torch.linalg, attention-based multiple-instance
learning, beam search, a hand-written Optimizer (SGD, Lion) and LRScheduler (Noam), MLP-Mixer,
ConvNeXt with DropPath, Sinkhorn optimal transport, k-fold entity embeddings for tabular data,
BERT's masked-LM objective, Llama's RMSNorm, rotary embeddings, grouped-query attention and KV
cache, LoRA with merging, CleanRL's PPO, Grad-CAM, quantisation-aware training with fake
quantisation, convolution by im2col (unfold and fold), TRPO's conjugate-gradient step with
Fisher-vector products, soft actor-critic with a tanh-squashed Gaussian, multi-label and ranking
losses with tuned thresholds and NDCG, an LSTM with projections and a MultiheadAttention with
kdim/vdim and bias_kv recomputed from their weights, and cyclic, warm-restart and polynomial
schedules with max_norm embeddings and EmbeddingBag options against their formulas, forward-mode AD
with dual numbers, saved-tensor hooks and the optimizer step fused into backward, SN-GAN's spectral
normalisation, batch augmentation by affine_grid and grid_sample in every padding mode, the
nn.utils.rnn toolkit on unsorted batches, Beta/Dirichlet Bayesian updating with Thompson sampling,
and the options of the losses (weights with ignore_index and label smoothing, soft labels, batchmean
KL, full Poisson NLL) against NumPy, length-bucketed batching with a custom Sampler as batch_sampler
and namedtuple collation, and in-place writes and views inside a graph against central differences
with the version-counter errors, and mixed precision the pre-autocast way with fp32 master weights
and dynamic loss scaling by hand, and PyTorch's profiler recipe with a schedule; then the
sequence-models tutorial's LSTM part-of-speech tagger, the word-embeddings tutorial's N-gram model
and CBOW, the char-RNN name generator, pytorch/examples' word language model with repackage_hidden,
the nn.Transformer language model with batchify and get_batch, torch.func's Jacobians and Hessians
and neural tangent kernels, autograd.Functions with setup_context under vmap and grad (a
NumPy-backed sort), NaN hunting with detect_anomaly, conv-BN folding for inference, channels_last,
parametrizations with right_inverse, the DQN tutorial's soft target update, k-nearest neighbours by
cdist, two models and optimizers in one checkpoint, buffers with inference_mode, torch.compile's
first steps, and the double-backward tutorial's custom Functions; then a KAN layer of B-splines,
SIREN with its gradient and Laplacian by autograd, a dilated causal WaveNet on mu-law samples, flow
matching, sliced score matching against the Gaussian's closed form, a growing neural cellular
automaton, Muon's Newton-Schulz step as an Optimizer subclass beside AdamW, a tied sparse
autoencoder, a Perceiver over padded sets, a Mamba selective scan against its parallel form,
pix2pix's U-Net and PatchGAN, Reptile, TransE with MarginRankingLoss, DeepSDF's auto-decoder, a
program in the 0.3-era style (Variable, size_average=, torch.Tensor(n, m)), modern Hopfield
retrieval, PixelCNN's masked convolutions, an nn.Transformer forecaster, contrastive predictive
coding and a small AlphaZero with MCTS; then teaching code: d2l.ai's preliminaries (tensors, linear
algebra, autograd, Multinomial sampling), its linear and softmax regression, dropout, weight decay,
batch norm and a GRU from scratch, its parameter management (custom, tied and lazy layers, file
I/O), its optimizers by hand against torch.optim's, its convolution and pooling by hand, Nadaraya-
Watson attention pooling, masked softmax, multi-head attention against nn.MultiheadAttention and
positional encoding, and its anchor boxes with NMS, CS231n's three levels (barebones, nn.Module,
nn.Sequential) and its GAN notebook's losses, yunjey's feed-forward basics and language model
sampled by torch.multinomial, Stack Overflow idioms, Udacity's CNN with a best-validation checkpoint
and a fast.ai-style loop with callbacks as functions); then project scaffolding people write
by hand (a LightningModule with training_step and configure_optimizers driven by a small Trainer,
a Hugging Face-style loop with a TrainingArguments dataclass, no-decay parameter groups, a linear
warmup LambdaLR, gradient accumulation and clip_grad_norm_, a scikit-learn-style estimator with
fit/predict_proba and a cross-validated grid search), a torchvision-style transforms pipeline with
SubsetRandomSampler, BatchSampler, DistributedSampler and worker_init_fn, graph classification
with a MessagePassing base class (index_add_, scatter_reduce), a log-mel front end by unfold and
DFT matrices with a Conv1d classifier, a deep-and-cross CTR model with per-column embeddings,
evolution strategies on a hand-written cart-pole through parameters_to_vector, TorchScript calls
sprinkled through a model (script, trace, jit.save/load), BYOL with a momentum target,
prototypical networks, a Hamiltonian neural network, model surgery (module replacement, frozen
BatchNorm, conv-BN folding), ArcFace's angular margin, a SELU network with AlphaDropout checked
by forward hooks, DeepAR with a NegativeBinomial likelihood, planar flows and
TransformedDistribution, a Tree-LSTM over parse trees, tiny NeRF's volume rendering and Hogwild
training in shared memory); then Glow's ActNorm and invertible 1x1 layer with slogdet, Barlow Twins
and VICReg, a masked autoencoder (argsort masking, gather, unshuffle), Swin's shifted windows with
torch.roll and a relative position bias, N-BEATS, a two-tower retriever with in-batch negatives
and recall@k, an HMM's forward algorithm and Viterbi against enumeration, a batched Kalman filter
fitted by its likelihood, HMC for Bayesian logistic regression beside a Laplace approximation, EWC,
federated averaging of state_dicts, temperature scaling with an ECE by bucketize, split conformal
prediction with torch.quantile, a reversible block whose Function rebuilds its inputs in
backward, a deep equilibrium layer with an implicit backward hook, TD3 on a point mass, adaptive
softmax, Kim's TextCNN with renorm, soft-argmax keypoints, ISTA and LISTA, t-SNE by autograd
against its closed-form gradient, Bayesian optimisation with a GP and expected improvement, GloVe
counted by index_put_(accumulate=True), FAVOR+ and causal linear attention with ALiBi, deep
embedded clustering, CLIP's ModifiedResNet with attention pooling by
F.multi_head_attention_forward, and Megatron-style gradient buckets reduced from hooks on each
parameter's AccumulateGrad node), kept in ``scripts/`` as written for PyTorch
with only ``import torch`` spelled ``import minigenesis as torch``. Each checks its own outcome (an
accuracy, a closed form, an equality with a reference path) and must run unchanged. All of them run
on PyTorch 2.13 as well (``tests/parity/test_written_programs_on_pytorch.py``)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import minigenesis as mg

SCRIPTS = sorted((Path(__file__).parent / "scripts").glob("*.py"))
# the ones that take over ~3 s on a loaded two-core machine
SLOW = {
    "bilstm_crf", "nn_really_refactor", "polynomial_examples", "maml_sine", "gpt_weight_tying",
    "ctc_speech_like", "heteroscedastic_ensemble", "optimizers_rosenbrock", "gamma_poisson_vi",
    "bert_mlm_tiny", "lora_finetune", "quantile_regression", "ebm_langevin",
    "fourier_features_nerf", "sinkhorn_ot", "ppo_clip", "convnext_droppath",
    "tabular_entity_embeddings_kfold", "spectral_norm_sngan", "char_rnn_generation",
    "deepsdf_autodecoder", "selective_scan", "timeseries_transformer", "perceiver_latents",
    "neural_cellular_automaton", "kan_bspline", "cpc_infonce", "cs231n_three_levels",
    "d2l_multihead_positional", "d2l_seq2seq_bahdanau", "cs231n_gan_notebook",
    "planar_flow_transformed", "recursive_tree_nn", "tiny_nerf_volume_render", "hamiltonian_nn",
    "selu_alpha_dropout", "deepar_negative_binomial", "keypoint_soft_argmax", "td3_point_mass",
    "bayesopt_gp_ei", "kalman_filter_learned", "lista_sparse_coding", "hmm_forward_viterbi",
    "barlow_twins_vicreg", "hmc_bayesian_logreg",
}  # fmt: skip


# Process-wide settings a program may change (``torch.backends.cudnn.benchmark = True``, a default
# dtype, grad mode ...): the programs run in this process, so each one's are put back after it.
_FLAGS = [
    (mg.backends.cudnn, ("enabled", "benchmark", "deterministic", "allow_tf32")),
    (mg.backends.cuda.matmul, ("allow_tf32",)),
]
_SETTINGS = [
    (mg.get_default_dtype, mg.set_default_dtype),
    (mg.is_grad_enabled, mg.set_grad_enabled),
    (mg.is_anomaly_enabled, mg.set_anomaly_enabled),
    (mg.is_warn_always_enabled, mg.set_warn_always),
    (mg.get_float32_matmul_precision, mg.set_float32_matmul_precision),
    (mg.get_deterministic_debug_mode, mg.set_deterministic_debug_mode),
]


@pytest.fixture
def process_settings_kept():
    flags = [(obj, name, getattr(obj, name)) for obj, names in _FLAGS for name in names]
    settings = [(set_, get()) for get, set_ in _SETTINGS]
    deterministic = (
        mg.are_deterministic_algorithms_enabled(),
        mg.is_deterministic_algorithms_warn_only_enabled(),
    )
    yield
    for obj, name, value in flags:
        setattr(obj, name, value)
    for set_, value in settings:
        set_(value)
    mg.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
    mg.set_printoptions(profile="default")  # d2l.ai's chapters call set_printoptions(2)


def test_the_programs_are_there() -> None:
    assert len(SCRIPTS) == 256


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW else p for p in SCRIPTS],
    ids=lambda p: p.stem,
)
def test_program_runs_unchanged(
    script: Path, capsys: pytest.CaptureFixture, process_settings_kept: None
) -> None:
    mg.manual_seed(0)
    runpy.run_path(str(script), run_name="__main__")  # its asserts check its results
    assert capsys.readouterr().out  # each program reports what it computed
