"""A class on JupyterHub: accounts, the hub's configuration, sign-in."""
