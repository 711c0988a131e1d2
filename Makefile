# The two commands of the README, `make test` and `make train`; both build .venv from nothing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test train bots other-play bench benchmark results results-symmetrised results-own-search results-expert results-modules results-strangers results-cross-play \
	limits screenshots load-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One environment for both commands (the tests train small models too); re-installed when
# pyproject.toml changes. torch first, pinned: on these machines 2.13.0 is a CPU wheel already
# on disk, while an unpinned torch would pull a multi-GB CUDA build.
# The install step prints its own time, apart from the command's.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@start=$$(date +%s); \
	$(BIN)/pip install --quiet torch==2.13.0 && \
	$(BIN)/pip install --quiet -e '.[train,dev,ecosystem,rllib,web]' && \
	echo "install step: $$(( $$(date +%s) - start )) s"
	touch $@

test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# MAPPO fine-tuning of an imitation bot (docs/training.md): the overrides of configs/mappo.yaml.
FINETUNE = --config configs/mappo.yaml hidden=[256,64] activation=relu critic_warmup=25 \
	learning_rate=0.00005 ent_coef=0

# The main job, 3 players, base game: imitation of the heuristic's value model (tranquility train's
# embedded default config, without its PPO; checkpoints/p3/), Other-Play MAPPO fine-tuning of that
# bot for 8 minutes (max_minutes: as many steps as the machine makes in them; checkpoints/p3_finetune/),
# the fine-tuned bot played over its colour symmetries
# (checkpoints/p3_main/), then its evaluation table. TensorBoard logs in runs/.
train: $(VENV)/.installed
	$(BIN)/tranquility train total_steps=0 final_eval_games=0
	$(BIN)/tranquility mappo $(FINETUNE) other_play=true init_actor=checkpoints/p3/final total_steps=10000000 \
		max_minutes=8 eval_every=1000000 final_eval_games=0 run=p3_finetune
	$(BIN)/tranquility symmetrise checkpoints/p3_finetune/final checkpoints/p3_main/final
	$(BIN)/tranquility evaluate --players 3 --team policy:checkpoints/p3_main/final --team heuristic --team random

# A learned bot per player count from nothing, the way the shipped bots were made (PLAYERS=3 for
# one count): tranquility train (imitation, then PPO), MAPPO fine-tuning, search distillation, then
# make other-play from the distilled bot. Each step is skipped once its final bot exists and MAPPO
# resumes from its last checkpoint, so a stopped run goes on where it was. Bots in
# checkpoints/p<P>_{base,mappo,distill,op,op_symmetrised}/final; the last is the one to play.
PLAYERS ?= 1 2 3 4 5
bots: $(VENV)/.installed
	for P in $(PLAYERS); do \
		[ -f checkpoints/p$${P}_base/final/bot.json ] || \
			$(BIN)/tranquility train players=$$P run=p$${P}_base final_eval_games=0 --no-progress || exit 1; \
		[ -f checkpoints/p$${P}_mappo/final/bot.json ] || \
			$(BIN)/tranquility mappo $(FINETUNE) players=$$P init_actor=checkpoints/p$${P}_base/final \
				total_steps=4000000 final_eval_games=0 run=p$${P}_mappo \
				$$([ -f checkpoints/p$${P}_mappo/resume.pt ] && echo --resume) || exit 1; \
		[ -f checkpoints/p$${P}_distill/final/bot.json ] || \
			$(BIN)/tranquility distill --config configs/distill.yaml players=$$P \
				init_actor=checkpoints/p$${P}_mappo/final run=p$${P}_distill || exit 1; \
		from=checkpoints/p$${P}_distill/final; run=p$${P}_op; $(OTHER_PLAY); \
	done

# Other-Play fine-tuning (PLAYERS=3 for one count): MAPPO from the bot FROM with each seat seeing its
# own colour renaming, 10 million steps (resumed where it stopped), then the bot played over its
# colour symmetries. FROM defaults to the distilled bot in checkpoints/shipped/ that the shipped
# bots were fine-tuned from (p1_distill_mappo solo, p<P>_distill at 2-5 players), RUN to
# p<P>_other_play. Bots in checkpoints/<RUN>{,_symmetrised}/final.
other-play: $(VENV)/.installed
	for P in $(PLAYERS); do \
		from="$(FROM)"; [ -n "$$from" ] || from=$(DISTILLED); \
		run="$(RUN)"; [ -n "$$run" ] || run=p$${P}_other_play; \
		$(OTHER_PLAY); \
	done

# The distilled bot of the player count $$P in checkpoints/shipped/ (the shipped bots before
# 2026-12-07, from which the shipped Other-Play bots were fine-tuned): solo p1_distill_mappo.
DISTILLED = checkpoints/shipped/p$${P}_distill$$([ $$P = 1 ] && echo _mappo)/final

# The Other-Play step of the two loops above, for the player count $$P, from the bot $$from, into
# checkpoints/$$run: a shell fragment (a variable's lines join into one).
OTHER_PLAY = [ -f checkpoints/$$run/final/bot.json ] || \
	$(BIN)/tranquility mappo $(FINETUNE) players=$$P other_play=true total_steps=10000000 init_actor=$$from \
		checkpoint_every=1000000 eval_every=1000000 final_eval_games=0 run=$$run \
		$$([ -f checkpoints/$$run/resume.pt ] && echo --resume) || exit 1; \
	$(BIN)/tranquility symmetrise checkpoints/$$run/final checkpoints/$${run}_symmetrised/final || exit 1

# The peers the benchmark compares against. hanabi_learning_environment builds with CMake, and
# CMake >= 4 refuses its old cmake_minimum_required unless told the policy version.
$(VENV)/.bench: pyproject.toml | $(VENV)/.installed
	CMAKE_POLICY_VERSION_MINIMUM=3.5 $(BIN)/pip install --quiet -e '.[bench]'
	touch $@

# benchmarks/: the speed benchmarks (not installed with the package); docs/speed.md quotes them.
bench: $(VENV)/.bench
	$(BIN)/python benchmarks/engine_speed.py
	$(BIN)/python benchmarks/engine_speed.py --env
	$(BIN)/python benchmarks/engine_speed.py --batch
	$(BIN)/python benchmarks/engine_speed.py --heuristic
	$(BIN)/python benchmarks/training_speed.py

# docs/reference_p3/: the benchmark's reference run, protocol 3: the quick tier (1 million env
# steps a learner) for every task and algorithm, then the standard tier (10 million) for MAPPO and
# IPPO on p3-v1; 3 seeds. Each resumes where it stopped. docs/reference/ keeps protocol 2's run.
benchmark: $(VENV)/.installed
	$(BIN)/tranquility benchmark --tier quick --out docs/reference_p3/quick
	$(BIN)/tranquility benchmark --tier standard --tasks p3-v1 --algorithms random,heuristic,mappo,ippo \
		--out docs/reference_p3/standard

# docs/results.md, "Every team alone": random, the heuristic with and without its search, and the
# shipped bot of each player count, on the same 1,000 evaluation deals (JSON and PNG in results/).
results: $(VENV)/.installed
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 \
			--team random --team heuristic --team heuristic-no-search --team policy || exit 1; \
	done

# docs/results.md, "Symmetrised": each distilled bot (the shipped bots before 2026-12-07) beside its
# copy played over the colour symmetries (checkpoints/shipped/p<P>_symmetrised, made by tranquility
# symmetrise), paired on the same deals.
results-symmetrised: $(VENV)/.installed
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/symmetrised \
			--team policy:$(DISTILLED) \
			--team policy:checkpoints/shipped/p$${P}_symmetrised/final || exit 1; \
	done

# docs/results.md, "With an end-game search": the shipped bots with the search over their own rollouts.
results-own-search: $(VENV)/.installed
	for P in 1 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/own_search \
			--team policy+own-search || exit 1; \
	done

# docs/results.md, "With a search at every decision": the shipped 3-player bot as the expert of
# tranquility expert-iteration (about 30 minutes on 2 cores).
results-expert: $(VENV)/.installed
	$(BIN)/tranquility evaluate --players 3 --games 1000 --out results/expert --team policy+expert

# docs/results.md, "The limits": the omniscient solver's ceiling on 200 evaluation deals of each task,
# and pimc, the heuristic and the shipped learned bot on the first 50 of them (docs/limits/).
limits: $(VENV)/.installed
	$(BIN)/tranquility limits --games 200 --team-games 50 --budget 700000 --out docs/limits

# docs/results.md, "Modules": the heuristic, with and without its search, on each module at 3 players.
results-modules: $(VENV)/.installed
	for M in green-path panoramas goats; do \
		FLAG=--$$M; [ $$M = panoramas ] && FLAG="--panoramas 3"; \
		$(BIN)/tranquility evaluate --players 3 $$FLAG --games 1000 --out results/modules/$$M \
			--team heuristic --team heuristic-no-search || exit 1; \
	done

# docs/results.md, "With strangers": the shipped bot in one seat beside each partner, 2-5 players.
results-strangers: $(VENV)/.installed
	for P in 2 3 4 5; do \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/strangers \
			--adhoc policy --partners test,careful-no-search || exit 1; \
	done

# docs/results.md, "Cross-play": make train's recipe with seeds 0-2 at 2-5 players (checkpoints/p<P>_seed<S>/,
# a seed already made is kept), then each pair of a player count's seeds in every seating.
results-cross-play: $(VENV)/.installed
	for P in 2 3 4 5; do \
		for S in 0 1 2; do \
			[ -f checkpoints/p$${P}_seed$$S/final/bot.json ] || \
				$(BIN)/tranquility train players=$$P seed=$$S run=p$${P}_seed$$S --no-progress || exit 1; \
		done; \
		$(BIN)/tranquility evaluate --players $$P --games 1000 --out results/cross_play \
			--cross-play checkpoints/p$${P}_seed0/final checkpoints/p$${P}_seed1/final checkpoints/p$${P}_seed2/final \
			|| exit 1; \
	done

# docs/img/table.png and replay.png, from a game in headless Chromium (Debian's chromium and chromium-driver).
screenshots: $(VENV)/.installed
	$(BIN)/python docs/screenshots.py

# docs/play.md, "What the server protects": tranquility serve on a loopback port, 32 browsers each playing a
# game to the end at once (benchmarks/web_load.py: fixed counts, stops by itself; exit 1 if a target is missed).
load-test: $(VENV)/.installed
	$(BIN)/python benchmarks/web_load.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
	find tranquility_env -name '*.nbi' -delete -o -name '*.nbc' -delete  # numba's compiled kernels
