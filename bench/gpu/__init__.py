"""`make gpu-check` (`python -m bench.gpu`): everything CUDA, checked on this machine's GPU.

    python -m bench.gpu [--json PATH] [--parts catalogue,bench,lectures,sealed]
    python -m bench.gpu --dry-run-on-cpu      # the same comparisons on the CPU: plumbing only

Parts, each one module, each result plain JSON (one file, written after every part, so a
run stopped early still leaves what it found):
- catalogue: every catalogue scenario that exists on CUDA, minigrad against live PyTorch on
  `cuda` (values, gradients, flags, grad_fn names, devices strictly; error and warning texts
  and reprs strictly only when PyTorch is the catalogue's 2.13, reported otherwise);
- bench: the MLP at batch 4096 and the elementwise chain, minigrad on CuPy against PyTorch
  CUDA, after a warm-up, synchronised;
- lectures: the lectures with GPU cells, run top to bottom; each GPU cell ran, skipped or
  failed (through a Jupyter kernel where nbclient and ipykernel exist, else the code cells'
  source in order in a fresh interpreter, and the JSON says which);
- sealed: the hidden tests' CUDA cells graded through the sealed run as grading runs them:
  the reference answers get full marks, a planted bug of a CUDA rule loses the cell, a bug
  of another rule does not, the released stub scores 0.

It needs only Python, NumPy, CuPy, a CUDA build of PyTorch 2.x and this source tree (no
install, no network); a part that needs a missing package says "not run: <package>
missing". Without a GPU nothing is run: the last line says so and the exit status is 0.
The last line always starts `gpu-check:` and gives the counts and ratios.
"""
