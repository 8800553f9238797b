"""Browser review: a loopback page to read a plan, comment on its blocks and decide.

- `review.serve_review` — the API (`planview review --web`, the app's `w` and `/plan review --web`,
  the Claude Code hook): serve one plan's page on 127.0.0.1 until it settles.
- `server` — the aiohttp server: token, Host and method checks, capped bodies, the routes.
- `save` — a save's body, the stale-base check and the contained write.
- `model` — the plan as the JSON the page renders (text only, code highlighted by `highlight`).
- `page` — the HTML shell, CSP and assets (`assets/`: hand-written CSS and JS, no build step).
- `decision`, `ports` — what a review settles with; the port each plan last used.

Never imports textual: the UI calls into this package.
"""
