"""Shared plumbing every algorithm uses: backend choice, input adapters,
validation, renumbering, the undirected edge set, compressed sparse rows and
output frames."""
