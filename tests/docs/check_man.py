#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_man.py MAN_DIR TOOLS_DIR - the man pages render and are complete.

Every page of MAN_DIR (built by docs/man/CMakeLists.txt with scdoc) is
rendered with `man -l` at 80 columns, as man-db does for a reader: the
rendering must succeed with nothing on stderr (groff's warnings on), hold
a NAME section and no line wider than 80 columns. Then, for each tool,
every option its --help lists must be in its page: each long option as a
word, and where --help pairs a short option with it ("-o, --output"),
that same pair, so a short option that moved to another long one shows.

Exit 77 (skipped) when the pages were not built (no scdoc) or man is
missing; 1 with one line per problem otherwise.
"""
import os
import re
import shutil
import subprocess
import sys

PAGES = ["tachyon-conv.1", "tachyon-diff.1", "tachyon-validate.1",
         "tachyon-record.1", "tachyon.7", "libtachyonfmt.3"]
TOOLS = ["tachyon-conv", "tachyon-diff", "tachyon-validate",
         "tachyon-record"]
WIDTH = 80

# An option line of --help: two or more spaces, then "-x, --long" or
# "--long" (an argument or the description may follow).
OPTION_LINE = re.compile(
    r"^ {2,}(?:(-[A-Za-z0-9]), +)?(--[a-z0-9][a-z0-9-]*)(?=[ =]|$)")


def render(path):
    """The page as a reader sees it (plain text), and groff's stderr."""
    env = dict(os.environ, MANWIDTH=str(WIDTH), LC_ALL="C", MANPAGER="cat",
               PAGER="cat")
    proc = subprocess.run(
        ["man", "--no-hyphenation", "--no-justification", "--warnings=all",
         "--local-file", path],
        env=env, stdin=subprocess.DEVNULL, capture_output=True)
    text = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        err += "man exited with status %d" % proc.returncode
    return text, err


def help_options(tool):
    """(short or None, long) for every option line of TOOL --help."""
    out = subprocess.run([tool, "--help"], stdin=subprocess.DEVNULL,
                         capture_output=True, check=True).stdout
    found = []
    for line in out.decode("utf-8", "replace").splitlines():
        m = OPTION_LINE.match(line)
        if m:
            found.append((m.group(1), m.group(2)))
    return found


def has_word(text, word):
    """WORD in TEXT, not as part of a longer option or name."""
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])",
                     text) is not None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_man.py MAN_DIR TOOLS_DIR")
    man_dir, tools_dir = sys.argv[1], sys.argv[2]
    if not all(os.path.exists(os.path.join(man_dir, p)) for p in PAGES):
        print("docs.man: skipped: the man pages were not built (no scdoc)")
        return 77
    if shutil.which("man") is None:
        print("docs.man: skipped: man is not installed")
        return 77
    problems = []
    rendered = {}
    for page in PAGES:
        text, err = render(os.path.join(man_dir, page))
        for line in err.splitlines():
            problems.append("%s: man -l: %s" % (page, line))
        if not re.search(r"^NAME$", text, re.M):
            problems.append("%s: no NAME section when rendered" % page)
        for n, line in enumerate(text.splitlines(), 1):
            if len(line) > WIDTH:
                problems.append("%s: rendered line %d is %d columns wide"
                                % (page, n, len(line)))
        # groff may break a line after a hyphen: "--max-" / "input-size".
        rendered[page] = re.sub(r"(?<=\S-)\n\s+", "", text)
    for tool in TOOLS:
        page = tool + ".1"
        options = help_options(os.path.join(tools_dir, tool))
        if not options:
            problems.append("%s --help: no option lines found" % tool)
        for short, long_opt in options:
            if not has_word(rendered[page], long_opt):
                problems.append("%s: %s of --help is not in the page"
                                % (page, long_opt))
            elif short and not has_word(rendered[page],
                                        short + ", " + long_opt):
                problems.append("%s: '%s, %s' of --help is not in the page"
                                % (page, short, long_opt))
    for p in problems:
        print("docs.man: " + p)
    if problems:
        return 1
    print("docs.man: %d pages render cleanly; the options of %d tools' "
          "--help are in their pages" % (len(PAGES), len(TOOLS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
