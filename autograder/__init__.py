"""autograder: checks any engine against PyTorch, scenario by scenario."""
