# One target per developer action. The two set-up commands in the README are bin/run and bin/test.
.PHONY: help run test lint fmt types migrate bench lab pins clients

help:  ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

run:  ## run web, worker, beat and Flower (after migrations)
	bin/run

test:  ## lint, types and the whole test suite on real Postgres/Redis/mail lab
	bin/test

lint:  ## ruff
	.venv/bin/ruff check .

fmt:  ## ruff format and import sorting
	.venv/bin/ruff check --fix --select I . && .venv/bin/ruff format .

types:  ## mypy (strict)
	.venv/bin/mypy .

migrate:  ## apply Alembic migrations to DATABASE_URL
	.venv/bin/alembic -c models/alembic.ini upgrade head

bench:  ## run the benchmarks under bench/ (figures go to docs/benchmarks.md)
	.venv/bin/python -m bench.smtp_sessions && .venv/bin/python -m bench.validation_workers \
		&& .venv/bin/python -m bench.tricky_batch

lab:  ## start the mail lab (DNS + SMTP servers on loopback) in the foreground
	.venv/bin/python -m maillab

# The header of each file names this target; pip and setuptools come with the virtualenv, so stay unpinned.
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make pins" .venv/bin/pip-compile --quiet --generate-hashes \
	--strip-extras --no-emit-index-url --no-emit-find-links

pins:  ## pin requirements*.txt (with hashes) from requirements*.in, keeping the versions already pinned
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	$(PIP_COMPILE) --output-file requirements-dev.txt requirements-dev.in

clients:  ## regenerate the TypeScript client's types from the API description, then build it
	cd clients/typescript && npm run generate && npm run build
