"""One module per CLI area; each exposes `register(subparsers)` (and optionally `register_root(parser)`)."""
