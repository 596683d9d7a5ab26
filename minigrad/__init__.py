"""minigrad: a reference autograd engine that behaves like PyTorch on the course subset."""
