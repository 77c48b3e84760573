#!/usr/bin/env bash
# Idempotent: a separate virtual environment holding the peers that tests
# compare against (upstream ExecuTorch, pinned beside torch 2.13.0). Kept out
# of .venv so the product's own environment never depends on a peer.
set -euo pipefail
cd "$(dirname "$0")/.."
STAMP=.venv-peers/.requirements.stamp
if [ ! -x .venv-peers/bin/python ]; then
  python3 -m venv .venv-peers
fi
if [ ! -f "$STAMP" ] || ! cmp -s requirements-peers.txt "$STAMP"; then
  echo "setup: installing peer packages (requirements-peers.txt) into .venv-peers"
  .venv-peers/bin/python -m pip install -q --upgrade pip
  .venv-peers/bin/python -m pip install -q -r requirements-peers.txt
  cp requirements-peers.txt "$STAMP"
fi
