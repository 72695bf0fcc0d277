#!/usr/bin/env bash
# Issue 48's targets table from one command: every target measured in one run, side by side with
# its anchor (and a baseline build), printed as one Markdown table with met or missed per row.
#
#     bash Benchmarks/targets.sh                       # against the default baseline (Benchmarks/targets.py)
#     bash Benchmarks/targets.sh --baseline main~3     # against another revision, built in a temporary worktree
#     bash Benchmarks/targets.sh --no-baseline --seconds 3 --rounds 2 --requests 3000   # quicker, this build only
#
# Installs what is missing (Benchmarks/install-tools.sh), then Benchmarks/targets.py builds and
# measures; the targets, their anchors and bounds are the TARGETS table at the top of targets.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Benchmarks/install-tools.sh
exec python3 Benchmarks/targets.py "$@"
