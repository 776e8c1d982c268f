"""Datasets: synthetic sets, a small text corpus, and readers for MNIST/CIFAR files (issue 7)."""
