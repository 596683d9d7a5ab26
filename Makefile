# One venv, made from nothing with only python3. Every target that runs code depends on it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8888
COURSE_LANG ?=
LAB_ARGS ?=
ROLE ?= student
COURSE ?=
NB ?=
SEED ?=
VERBOSE ?=
ROSTER ?=
INSTRUCTOR ?=
HUB_ARGS ?=

.PHONY: install test lint format bench mutation diagnoses seeds record lab hub hub-arguments html check exercises rules messages demo clean gpu-check

install: $(STAMP)

# Each step says what it does and about how long is left (measured here: ~2 minutes in all,
# nearly all of it step 3, PyTorch's download the first time).
$(STAMP): pyproject.toml
	@echo "install 1/4: a virtual environment in $(VENV) (seconds; about 2 minutes in all)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "install 2/4: an up-to-date pip (about 10 s)"
	@$(BIN)/python -m pip install -q --upgrade pip
	@echo "install 3/4: the course and its dependencies, PyTorch, JupyterLab, nbgrader," \
		"JupyterHub and its proxy (about 2 minutes the first time, longer on a slow network;" \
		"nothing shows until it is done)"
	@$(BIN)/python -m pip install -q -e '.[dev]'
	@echo "install 4/4: the Jupyter kernel (seconds)"
	@$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $@
	@echo "installed: $(VENV) is ready"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# compileall: the suite starts hundreds of Pythons (kernels, sandboxes, CLI runs); where
# PYTHONDONTWRITEBYTECODE is set, each would otherwise compile the project's modules again.
test: lint
	bash tools/sysdeps.sh
	$(BIN)/python -m compileall -q minigrad autograder coursekit bench
	$(BIN)/python -m pytest -n 2 --dist loadgroup

bench: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m bench

# How many single-point mutants of the exercises' reference answers the hidden tests catch.
mutation: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m bench.mutation

# The planted bugs' signatures, which name the likely mistake in a failing report
# (autograder/diagnoses.py). Rerun after changing the catalogue or a planted bug (a test says so).
diagnoses: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m bench.diagnoses build

# autograder.check(minigrad) against live PyTorch on 200 fresh seeds (SEEDS=S,S replays some).
seeds: install
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m bench.seeds $(if $(SEEDS),--seeds $(SEEDS))

# PyTorch 2.13's observations of every CPU scenario, which check() compares with where PyTorch
# 2.13 is not installed (autograder/recorded.py). Rerun after changing the catalogue.
record: install
	$(BIN)/python -c 'from autograder.recorded import record; print("written", record())'

# ROLE=student: the repository, opening course/00_start_here.ipynb, exercises in nbgrader's
# Assignments panel; COURSE_LANG=zh-CN: the lectures and exercises in Chinese (generated
# copies, course-zh-CN/). ROLE=instructor: COURSE (default: the demo class, built when
# missing) with the Formgrader.
lab: install
	$(BIN)/python tools/lab.py --role=$(ROLE) --port=$(PORT) $(if $(COURSE),--course-dir=$(COURSE)) \
		$(if $(COURSE_LANG),--lang=$(COURSE_LANG)) $(LAB_ARGS)

# The class on JupyterHub (as root): an account per student of ROSTER and for INSTRUCTOR,
# JupyterLab with nbgrader for each (README, For instructors: a class on JupyterHub).
hub: hub-arguments install
	$(BIN)/minigrad-course hub -C $(COURSE) --roster $(ROSTER) --instructor $(INSTRUCTOR) $(HUB_ARGS)

hub-arguments:  # before `install`: a forgotten argument is one line, at once
	$(if $(and $(COURSE),$(ROSTER),$(INSTRUCTOR)),,$(error make hub needs COURSE, ROSTER and \
	INSTRUCTOR, e.g. make hub COURSE=/srv/courses/autograd ROSTER=roster.csv INSTRUCTOR=teacher \
	(README: A class on JupyterHub)))

html: install
	$(BIN)/python tools/notebooks.py html --out site

# Self-paced: run exercise notebooks and print the feedback the grader would give
# (default: every assignment fetched into my_assignments/, the copies a student submits).
# SEED=N: the same values again; VERBOSE=1: every difference. A notebook that does not pass
# yet is what check is for: make reports no error of its own for it.
check: install
	@$(BIN)/python -m coursekit.exercises.selfcheck $(if $(SEED),--seed $(SEED)) \
		$(if $(VERBOSE),--verbose) $(NB) || test $$? -eq 1

# Regenerate solutions/ and exercises/ after changing coursekit/exercises or the catalogue.
exercises: install
	$(BIN)/python -m coursekit.exercises

# docs/RULES.md, the contract, written from the rules as data (autograder/rules.py); a test
# fails when it is out of date.
rules: install
	$(BIN)/python -m autograder.rules_doc

# The messages' catalogues (coursekit/locale/): new marked strings into each .po, each .po
# compiled into the .mo the package ships. Translate the empty msgstr, then run it again.
messages: install
	$(BIN)/python tools/messages.py

# A sample class (built from solutions/) graded end to end by the instructor's pipeline.
demo: install
	$(BIN)/minigrad-course demo build/demo-course

clean:
	rm -rf $(VENV) build site .pytest_cache .ruff_cache .hypothesis

# Everything CUDA on this machine's GPU (bench/gpu: the catalogue against PyTorch CUDA, the
# hidden tests' CUDA cells through the sealed run, the lectures' GPU cells, GPU bench rows):
# one JSON file (GPU_CHECK_JSON) and a last line `gpu-check: ...`. Without a GPU it says so
# and exits 0. No install step: a lent GPU machine runs `python3 -m bench.gpu` the same way.
GPU_CHECK_JSON ?= build/gpu-check.json
gpu-check:
	$(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)) -m bench.gpu --json $(GPU_CHECK_JSON)
