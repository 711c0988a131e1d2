# The two commands of the README. Both build .venv from nothing on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test train bench retired-bots results results-search results-own-search clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One environment for both commands (the tests train small models too); re-installed when
# pyproject.toml changes. torch first, pinned: on these machines 2.13.0 is a CPU wheel already
# on disk, while an unpinned torch would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[train,dev,ecosystem,rllib]'
	touch $@

test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

# The main job: the embedded default config (3 players, base game, self-play), about 22 minutes
# on 2 cores, then its evaluation table. Checkpoints in checkpoints/p3/, TensorBoard logs in runs/.
train: $(VENV)/.installed
	$(BIN)/tranquility train

# The peers the benchmark compares against. hanabi_learning_environment builds with CMake, and
# CMake >= 4 refuses its old cmake_minimum_required unless told the policy version.
$(VENV)/.bench: pyproject.toml | $(VENV)/.installed
	CMAKE_POLICY_VERSION_MINIMUM=3.5 $(BIN)/pip install --quiet -e '.[bench]'
	touch $@

bench: $(VENV)/.bench
	$(BIN)/python -m tranquility_env.bench
	$(BIN)/python -m tranquility_env.bench --env

# The bots the README's results were measured with beyond the five shipped ones (bots.SHIPPED_BOTS):
# the steps each shipped bot was made from, shipped until RETIRED_AT. This puts them back in
# checkpoints/ (untracked, ignored), so the README's commands that name them run as written.
RETIRED_AT := 1dabcc9
RETIRED := p1 p2 p3 p4 p5 p1_mappo_finetune p2_mappo_finetune p3_mappo_finetune p4_mappo_finetune \
	p5_mappo_finetune p1_distill

retired-bots:
	@git cat-file -e $(RETIRED_AT)^{commit} 2>/dev/null || { echo "make retired-bots: needs the git history up to commit $(RETIRED_AT) (a full clone)" >&2; exit 1; }
	git archive $(RETIRED_AT) $(addprefix checkpoints/,$(RETIRED)) | tar -x --skip-old-files

# The README's results table: the shipped and the retired bots against the random and heuristic
# teams, on the same 1,000 deals per player count (tables printed; JSON and PNG in results/). The
# bots of P players are checkpoints/p<P>/final and checkpoints/p<P>_<variant>/final.
results: $(VENV)/.installed retired-bots
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 \
			--team random --team heuristic --team heuristic-no-search \
			$$(for C in checkpoints/p$$P/final checkpoints/p$${P}_*/final; do \
				test -d $$C && echo --team policy:$$C; done) \
			|| exit 1; \
	done

# The fine-tuned bots with the heuristic's end-game search (README, Results): as slow as the
# heuristic's games on this machine: 30-42, 26, 33-51 and 50 minutes at 2, 3, 4 and 5 players;
# solo 97 minutes (the heuristic: 61).
results-search: $(VENV)/.installed retired-bots
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/search \
			--team policy+search:checkpoints/p$${P}_mappo_finetune/final || exit 1; \
	done

# The shipped bots with their own end-game search (README, Results, "At a glance"): 37, 51 and
# 89 minutes at 2, 3 and 4 players on 2 cores; solo and at 5 (96 rollouts) not run yet, about twice.
results-own-search: $(VENV)/.installed
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/own_search \
			--team policy+own-search:$$($(BIN)/python -c "from tranquility_env.bots import shipped_bot; print(shipped_bot($$P))") \
			|| exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
