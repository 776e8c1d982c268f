"""Names PyTorch exposes at ``torch.*`` that are aliases of functions living elsewhere
(``torch.conv2d`` is ``F.conv2d`` with aten's argument order), the function forms of Tensor
methods (``torch.abs_(x)``, ``torch.view_copy(x, s)``), and small stand-alone functions
(``torch.range``, the window functions, ``torch.asarray`` ...). The package ``__init__`` of
minigenesis re-exports them."""
