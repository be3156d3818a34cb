"""Every shell block marked runnable (an HTML comment `<!-- runnable -->` on
the line before it) in README.md and conformance/README.md runs as written,
from the repository root, each line in order, and succeeds. Blocks that need
a GPU or a Mac are not marked; they say so in their comments."""

import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ["README.md", "conformance/README.md"]
BLOCK = re.compile(r"<!-- runnable -->\n```(?:sh|bash)\n(.*?)```", re.DOTALL)


def commands():
    for doc in DOCS:
        for block in BLOCK.findall((ROOT / doc).read_text()):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command and not command.startswith("#"):
                    yield pytest.param(command, id=f"{doc}: {command[:60]}")


COMMANDS = list(commands())


def test_the_readmes_mark_runnable_blocks():
    assert len(COMMANDS) >= 4


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(command):
    if command == "make test":
        pytest.skip("make test is the command that runs this test")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARROWMETAL_")}
    env.pop("PYTHONPATH", None)
    r = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, check=False,
        timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, f"{command}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
