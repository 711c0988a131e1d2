# The two commands of the README. Both build .venv from nothing on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test train bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One environment for both commands (the tests train small models too); re-installed when
# pyproject.toml changes. torch first, pinned: on these machines 2.13.0 is a CPU wheel already
# on disk, while an unpinned torch would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[train,dev]'
	touch $@

test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

train: $(VENV)/.installed
	@echo "make train: the training pipeline is not built yet (issue 4); the environment is installed in $(VENV)."

# The peers the benchmark compares against. hanabi_learning_environment builds with CMake, and
# CMake >= 4 refuses its old cmake_minimum_required unless told the policy version.
$(VENV)/.bench: pyproject.toml | $(VENV)/.installed
	CMAKE_POLICY_VERSION_MINIMUM=3.5 $(BIN)/pip install --quiet -e '.[bench]'
	touch $@

bench: $(VENV)/.bench
	$(BIN)/python -m tranquility_env.bench
	$(BIN)/python -m tranquility_env.bench --env

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
