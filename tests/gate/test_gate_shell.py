"""The read-only git shell, table-driven: each command with its verdict and a piece of the reason."""

from __future__ import annotations

import pytest

from planview.gate.git_shell import check_git_command
from planview.gate.shell_words import ShellRefusal, Word, split_chain

OK = None  # allowed: the reason must be empty

ALLOWED = [
    "git status",
    "git status --short",
    "git status -sb",
    "git status --porcelain=v2",
    "git diff",
    "git diff --stat",
    "git diff --cached",
    "git diff --staged --name-only",
    "git diff HEAD~3..HEAD -- src/",
    "git diff main...feature",
    "git diff -U5",
    "git diff --text",
    "git diff --no-ext-diff",
    "git diff --no-textconv",
    "git diff --output-indicator-new=+",
    "git diff --word-diff",
    "git diff --find-copies",
    "git diff -- extensions\\plan",
    "git diff -- 'extensions\\plan'",
    'git diff -- "extensions\\plan"',
    "git diff -- C:\\Users\\ada\\repo\\file.txt",
    "git log",
    "git log --oneline -5",
    "git log --oneline -n 10",
    "git log -n5",
    "git log --format='%h %s'",
    'git log --format="%h %an %s"',
    "git log --pretty=format:'%h|%s'",
    "git log --graph --decorate --all",
    "git log -Sconfig",
    "git log -S'config value'",
    "git log -Gcache --oneline",
    "git log -L1,5:src/core.c",
    "git log --author='José Núñez'",
    "git log --author=José",
    "git log --grep='fix: ümlaut'",
    "git log -- 'src/*.py'",
    "git log --since='2 weeks ago'",
    "git log HEAD@{1}..HEAD",
    "git show HEAD@{1}..HEAD@{0}",
    "git log @{upstream}..",
    "git log origin/main..HEAD",
    "git log -p -1 -- README.md",
    "git log --diff-merges=combined",
    "git log --find-copies",
    "git log -5 --stat",
    "git show",
    "git show HEAD",
    "git show HEAD:README.md",
    "git show --stat HEAD~1",
    "git show v1.0^{commit}",
    "git rev-parse HEAD^!",
    "git blame README.md",
    "git blame -L 10,20 src/app.py",
    "git blame -L10,20 -- src/app.py",
    "git grep -n TODO",
    "git grep --count TODO",
    "git grep -e 'foo|bar' -- '*.py'",
    "git grep --context=3 needle",
    "git grep -i 'naïve'",
    "git grep -A2 -B2 needle",
    "git grep 'a;b'",
    "git grep 'x && y'",
    "git grep '$HOME'",
    "git grep 'a > b'",
    "git grep '`tick`'",
    "git grep '#comment'",
    "git shortlog -sn",
    "git shortlog --summary --numbered",
    "git describe --tags",
    "git rev-parse HEAD",
    "git rev-parse --show-toplevel",
    "git rev-parse --abbrev-ref HEAD",
    "git rev-parse --git-dir",
    "git rev-list --count HEAD",
    "git rev-list --max-count=3 HEAD",
    "git ls-files",
    "git ls-files --cached --others --exclude-standard",
    "git ls-files -- 'docs/*.md'",
    "git ls-tree -r HEAD --name-only",
    "git cat-file -p HEAD",
    "git cat-file -t HEAD",
    "git for-each-ref --format='%(refname:short)' refs/heads",
    "git count-objects -v",
    "git merge-base main HEAD",
    "git merge-base --is-ancestor main HEAD",
    "git name-rev HEAD",
    "git diff-tree --no-commit-id -r HEAD",
    "git diff-index --quiet HEAD --",
    "git diff-files --name-only",
    "git show-ref --heads",
    "git var GIT_AUTHOR_IDENT",
    "git version",
    "git --version",
    "git whatchanged -1",
    "git reflog",
    "git reflog -n 5",
    "git reflog show",
    "git reflog show HEAD",
    "git branch",
    "git branch -a",
    "git branch -r",
    "git branch -vv",
    "git branch -av",
    "git branch --list 'feature/*'",
    "git branch -l 'fix-*'",
    "git branch --contains HEAD",
    "git branch --merged main",
    "git branch --no-merged",
    "git branch --show-current",
    "git branch --sort=-committerdate",
    "git branch --format '%(refname:short)'",
    "git tag",
    "git tag -l 'v1.*'",
    "git tag --list",
    "git tag -n5",
    "git tag --contains HEAD",
    "git tag --sort=-v:refname",
    "git stash list",
    "git stash show",
    "git stash show -p stash@{1}",
    "git worktree list",
    "git worktree list --porcelain",
    "git remote",
    "git remote -v",
    "git remote --verbose",
    "git remote get-url origin",
    "git --no-pager log -1",
    "git -P show",
    "git --no-optional-locks status",
    "git --literal-pathspecs ls-files",
    "git status && git diff --stat",
    "git status; git log --oneline -5",
    "git status ; git diff",
    "git status&&git diff",
    "git log -1 && git show --stat && git branch -a",
    "\tgit   status\t",
    "git log '--format=%h'",
    "git log --format=%h#x",
    "git show 'HEAD:docs/naïve café.md'",
    "git log --grep=日本語",
    "git log -- ；rm",  # a fullwidth semicolon is not a shell separator: git gets the word "；rm"
    "git log -- 'a‮b'",
    "git diff main..feature -- src/app.py",
    "git diff HEAD~2 ./docs/a/../b.md",
    "git config --file .gitmodules --list",
    "git config -f .gitmodules --get-regexp path",
    "git grep -f patterns.txt",
    "git grep -e x -- ../not-a-file-option",
    "git blame --ignore-revs-file .git-blame-ignore-revs README.md",
    "git grep -e -f ../x",
]

REFUSED = [
    # pipes, ||, background, redirection
    ("git status | sh", "pipes (|)"),
    ("git log|head", "pipes (|)"),
    ("git status |& cat", "pipes (|)"),
    ("git status || rm -rf x", "|| is not allowed"),
    ("git status & git diff", "background jobs (&)"),
    ("git status &", "background jobs (&)"),
    ("git status &&& git diff", "background jobs (&)"),
    ("git diff > out.patch", "redirection (>)"),
    ("git diff >> out.patch", "redirection (>)"),
    ("git diff >| out.patch", "redirection (>)"),
    ("git log 2>/dev/null", "redirection (>)"),
    ("git log 2>&1", "redirection (>)"),
    ("git log &> all.txt", "redirection (&>)"),
    ("git apply < x.patch", "redirection (<)"),
    ("git log <<< x", "redirection (<)"),
    ("git diff <(echo a) b", "process substitution (<(...))"),
    ("git diff >(cat) b", "process substitution (>(...))"),
    # substitution and expansion
    ('git log "$(rm x)"', "command substitution $(...)"),
    ("git log $(rm x)", "command substitution $(...)"),
    ("git log `rm x`", "backticks"),
    ('git log "`rm x`"', "backticks"),
    ("git log $HOME", "$ expansion"),
    ("git log ${HOME}", "$ expansion"),
    ('git log "$HOME"', "$ expansion inside double quotes"),
    ("git log $'\\x41'", "$ expansion"),
    ('git log "\\$HOME"', "$ expansion inside double quotes"),
    # newlines, control characters
    ("git status\ngit diff", "newlines are not allowed"),
    ("git status\r\n", "newlines are not allowed"),
    ("git log --format='%h\n%s'", "newlines are not allowed"),
    ("git status\x00", "control character U+0000"),
    ("git status\x1b[31m", "control character U+001B"),
    ("git log\x85", "control character U+0085"),
    # empty segments
    ("", "empty command"),
    ("   ", "empty command"),
    ("git status &&", "empty command"),
    ("git status && && git diff", "empty command"),
    ("git status;;", "empty command"),
    (";git status", "empty command"),
    ("git status;", "empty command"),
    ("&& git status", "empty command"),
    # environment assignments and wrappers
    ("GIT_PAGER=x git log", "environment assignments"),
    ("GIT_DIR=/tmp/x git status", "environment assignments"),
    ("LC_ALL=C git log", "environment assignments"),
    ("sudo git status", '"sudo" is not allowed'),
    ("command git status", '"command" is not allowed'),
    ("env git status", '"env" is not allowed'),
    ("exec git status", '"exec" is not allowed'),
    ("xargs git show", '"xargs" is not allowed'),
    ("bash -c 'git status'", '"bash" is not allowed'),
    ("/usr/bin/git status", "run git directly"),
    ("./git status", "run git directly"),
    ("'git' status", "run git directly"),
    ('"git" status', "run git directly"),
    ("\\git status", "run git directly"),
    ("git.exe status", "run git directly"),
    ("Git status", "is not a read-only git command"),
    ("git\u00a0status", "is not a read-only git command"),
    ("git status\u3000&& rm x", 'git "status\\u3000" is not a read-only git command'),
    ("git status；rm -rf x", 'git "status；rm" is not a read-only git command'),
    ("git stаtus", "is not a read-only git command"),  # Cyrillic а
    # other first words
    ("cd src && git status", "cd is not needed: commands already run in the project root"),
    ("cd /tmp", "cd is not needed"),
    ("pushd src", "cd is not needed"),
    ("git status && cd x", "cd is not needed"),
    ("cat README.md", "use the read / grep / find / ls tools to look at files"),
    ("ls -la", "use the read / grep / find / ls tools to look at files"),
    ("grep -r foo .", "use the read / grep / find / ls tools"),
    ("find . -name x", "use the read / grep / find / ls tools"),
    ("head -n 5 README.md", "use the read / grep / find / ls tools"),
    ("sed -i s/a/b/ file.txt", "use the read / grep / find / ls tools"),
    ("rm -rf build", "is not a read-only git command"),
    ("git status && rm -rf x", "is not a read-only git command"),
    ('python -c \'open("x","w")\'', "is not a read-only git command"),
    ("touch x", "is not a read-only git command"),
    ("npm install", "is not a read-only git command"),
    ("gitk --all", "is not a read-only git command"),
    ("( git status )", "subshells and grouping"),
    ("{ git status; }", "is not a read-only git command"),
    ("! git status", "is not a read-only git command"),
    ("# git status", "shell comments (#)"),
    ("git status # comment", "shell comments (#)"),
    # mutating and unknown subcommands
    (
        "git commit -m x",
        "git commit changes the repository; only read-only git commands run in plan mode (status, diff, log, show, …)",
    ),
    ("git add .", "git add changes the repository"),
    ("git push", "git push changes the repository"),
    ("git push --force origin main", "git push changes the repository"),
    ("git checkout main", "git checkout changes the repository"),
    ("git switch -c x", "git switch changes the repository"),
    ("git switch main", "git switch changes the repository"),
    ("git reset --hard", "git reset changes the repository"),
    ("git restore .", "git restore changes the repository"),
    ("git clean -fdx", "git clean changes the repository"),
    ("git merge main", "git merge changes the repository"),
    ("git rebase -i HEAD~3", "git rebase changes the repository"),
    ("git fetch", "git fetch changes the repository"),
    ("git pull", "git pull changes the repository"),
    ("git apply x.patch", "git apply changes the repository"),
    ("git am x.mbox", "git am changes the repository"),
    ("git rm x", "git rm changes the repository"),
    ("git mv a b", "git mv changes the repository"),
    ("git gc", "git gc changes the repository"),
    ("git format-patch -1", "git format-patch changes the repository"),
    ("git archive HEAD", "git archive changes the repository"),
    ("git bundle create x HEAD", "git bundle changes the repository"),
    ("git difftool", "git difftool changes the repository"),
    ("git cherry-pick abc", "git cherry-pick changes the repository"),
    ("git update-ref refs/heads/x HEAD", "git update-ref changes the repository"),
    ("git help log", "git help opens a manual viewer"),
    ("git ls-remote origin", "is not a read-only git command"),
    ("git co main", "is not a read-only git command"),
    ("git status && git commit -am x", "git commit changes the repository"),
    ("git status; git push", "git push changes the repository"),
    ("git", "git needs a subcommand"),
    ("git --no-pager", "git needs a subcommand"),
    # refused options anywhere, attached forms included
    ("git -c core.pager=sh log", '"-c"'),
    ("git -cfoo=bar log", '"-cfoo=bar"'),
    ("git -c alias.x=!sh x", '"-c"'),
    ("git -C /tmp status", '"-C"'),
    ("git -C. status", '"-C."'),
    ("git --git-dir=/tmp/x status", "--git-dir points git at another repository"),
    ("git --git-dir /tmp/x status", "--git-dir points git at another repository"),
    ("git --work-tree=/ status", "--work-tree"),
    ("git --exec-path=/tmp log", "--exec-path"),
    ("git --exec-path", "--exec-path"),
    ("git --namespace=x log", "--namespace"),
    ("git --config-env=core.pager=X log", "--config-env"),
    ("git --bare log", "--bare"),
    ("git -p log", "not allowed before the subcommand"),
    ("git --paginate log", "--paginate starts a pager"),
    ("git --help", "--help opens a manual viewer"),
    ("git log --help", "--help opens a manual viewer"),
    ("git -h", "not allowed before the subcommand"),
    ("git diff --output=/tmp/x", "--output writes its output to a file"),
    ("git log -p --output /tmp/x", "--output writes"),
    ("git diff --ext-diff", "--ext-diff runs an external diff program"),
    ("git log -p --textconv", "--textconv runs"),
    ("git cat-file --textconv HEAD:x", "--textconv"),
    ("git cat-file --filters HEAD:x", "--filters runs filter programs"),
    ("git grep -O TODO", '"-O"'),
    ("git grep -Oless TODO", '"-Oless"'),
    ("git grep -iOless TODO", '"-iOless"'),
    ("git grep -lOless TODO", '"-lOless"'),
    ("git grep --open-files-in-pager=vim x", "--open-files-in-pager"),
    ("git grep --open x", "abbreviates --open-files-in-pager"),
    ("git diff -O/tmp/order", "reads outside the project"),
    ("git log --outp=x", "abbreviates --output"),
    ("git diff --ext", "abbreviates --ext-diff"),
    ("git log --textc", "abbreviates --textconv"),
    ("git log --upload-pack=x origin", "--upload-pack runs a program"),
    ("git log --receive-pack=x", "--receive-pack"),
    ("git rev-parse --git-dir=x", "--git-dir"),
    ("git log '--output=x'", "--output writes"),
    ('git log "--output=x"', "--output writes"),
    ("git log --outpu\\t=x", "--output writes"),
    ("git status --git-dir=/x", "--git-dir"),
    # glob and brace expansion, escapes, quotes
    ("git log *", "the shell expands an unquoted *"),
    ("git ls-files *.py", "the shell expands an unquoted *"),
    ("git log --o*", "the shell expands an unquoted *"),
    ("git show HEAD?", "the shell expands an unquoted ?"),
    ("git log [a]", "the shell expands an unquoted ["),
    ("git log {--output=x,}", "brace expansion"),
    ("git log --outpu{t,}=x", "brace expansion"),
    ("git log {1..3}", "brace expansion"),
    ("git log x{a,{b}}", "brace expansion"),
    ("git diff -- a\\;b", "a backslash escaping ';'"),
    ("git diff -- a\\|b", "a backslash escaping '|'"),
    ("git diff -- a\\>b", "a backslash escaping '>'"),
    ("git diff -- a\\$b", "a backslash escaping '$'"),
    ("git diff -- a\\ b", "a backslash escaping ' '"),
    ("git diff -- a\\*b", "a backslash escaping '*'"),
    ("git diff -- a\\\\b", "a backslash escaping '\\\\'"),
    ("git diff -- a\\'b", 'a backslash escaping "\'"'),
    ("git status\\", "a trailing backslash"),
    ('git log "a\\"b"', "a backslash escaping '\"'"),
    ("git log 'unterminated", "unterminated ' quote"),
    ('git log "unterminated', 'unterminated " quote'),
    # listing-only subcommands
    ("git branch foo", "changes branches"),
    ("git branch -d foo", "changes branches"),
    ("git branch -D foo", "changes branches"),
    ("git branch -m old new", "changes branches"),
    ("git branch -M new", "changes branches"),
    ("git branch --delete foo", "changes branches"),
    ("git branch --set-upstream-to=origin/main", "changes branches"),
    ("git branch -u origin/main", "changes branches"),
    ("git branch --edit-description", "changes branches"),
    ("git branch -f main HEAD", "changes branches"),
    ("git branch --contains HEAD newbranch", "changes branches"),
    ("git tag v2.0", "changes tags"),
    ("git tag -a v2 -m x", "changes tags"),
    ("git tag -d v1", "changes tags"),
    ("git tag -f v1", "changes tags"),
    ("git stash", '"git stash" changes the stash'),
    ("git stash push", "changes the stash"),
    ("git stash pop", "changes the stash"),
    ("git stash drop", "changes the stash"),
    ("git stash -p", "changes the stash"),
    ("git worktree add ../x", "changes worktrees"),
    ("git worktree remove x", "changes worktrees"),
    ("git worktree", "changes worktrees"),
    ("git remote add x url", "only git remote, git remote -v and git remote get-url"),
    ("git remote set-url origin x", "only git remote"),
    ("git remote remove origin", "only git remote"),
    ("git remote show origin", "only git remote"),
    ("git remote -v update", "only git remote"),
    ("git reflog expire --all", "changes the reflog"),
    ("git reflog delete HEAD@{1}", "changes the reflog"),
    ("git reflog --all expire", "changes the reflog"),
    ("git config user.name x", "git config without --get or --list changes configuration"),
    ("git config core.pager", "without --get or --list"),
    ("git config --add x y", 'git config "--add"'),
    ("git config --unset user.name", "not allowed"),
    ("git config --get x --unset", "not allowed"),
    ("git config --edit", "not allowed"),
    ("git config -e", "not allowed"),
    ("git config -le", "not allowed"),
    ("git config --global user.name x", "reads the user's or the system's config"),
    ("git config --global get user.name", "reads the user's or the system's config"),
    ("git config set user.name x", "without --get or --list"),
    ("git config --replace-all x y", "not allowed"),
    ("git config --rep x y", "not allowed"),
    # reads outside the project (plan-mode read tools are confined to it; git must not be the way out)
    ("git diff a.txt /tmp/gfz/secret.txt", "reads outside the project"),
    ("git diff /dev/null ~/.ssh/id_rsa", "starts with ~"),
    ("git diff README.md ../secret.txt", "reads outside the project"),
    ("git diff -- docs/../../secret.txt", "reads outside the project"),
    ("git diff --no-index a b", "--no-index reads files anywhere"),
    ("git grep --no-index TODO", "--no-index reads files anywhere"),
    ("git diff --no-i a b", "abbreviates --no-index"),
    ("git blame --contents ../secret.txt README.md", "reads outside the project"),
    ("git blame --contents=/etc/passwd README.md", "reads outside the project"),
    ("git config --file ../secret --list", "reads outside the project"),
    ("git config --file=/etc/gitconfig --list", "reads outside the project"),
    ("git config -f ~/.gitconfig -l", "starts with ~"),
    ("git config -f../secret -l", "reads outside the project"),
    ("git config -lf ../secret", "reads outside the project"),
    ("git grep -f ../secret.txt", "reads outside the project"),
    ("git grep -if../secret.txt", "reads outside the project"),
    ("git grep --file=/etc/passwd", "reads outside the project"),
    ("git blame -S ../secret.txt README.md", "reads outside the project"),
    ("git blame --ignore-revs-file ../secret.txt README.md", "reads outside the project"),
    ("git ls-files -o -X ../secret.txt", "reads outside the project"),
    ("git log -p --orderfile=/etc/passwd", "reads outside the project"),
]


@pytest.mark.parametrize("command", ALLOWED)
def test_allowed(command: str) -> None:
    verdict = check_git_command(command)
    assert verdict.allowed, (command, verdict.reason)
    assert verdict.reason == ""


@pytest.mark.parametrize(("command", "fragment"), REFUSED)
def test_refused_with_reason(command: str, fragment: str) -> None:
    verdict = check_git_command(command)
    assert not verdict.allowed, command
    assert fragment in verdict.reason, (command, verdict.reason)


def test_corpus_is_large_and_unique() -> None:
    refused = [command for command, _ in REFUSED]
    assert len(ALLOWED) + len(REFUSED) >= 150
    assert len(set(ALLOWED)) == len(ALLOWED)
    assert len(set(refused)) == len(refused)
    assert not set(ALLOWED) & set(refused)


def test_every_refusal_names_a_fix_and_is_one_line() -> None:
    for command, _ in REFUSED:
        reason = check_git_command(command).reason
        assert reason and "\n" not in reason and "\r" not in reason, command
        # A fix is named: an alternative, a way to rewrite, or the read-only list.
        assert any(
            hint in reason
            for hint in (
                "use ",
                "run ",
                "quote",
                "chain",
                "only",
                "remove",
                "close",
                "write",
                "drop",
                "spell",
                "put",
                "not needed",
            )
        ), (command, reason)


def test_refused_reasons_never_echo_control_characters() -> None:
    verdict = check_git_command("git \x1b]0;pwned\x07status")
    assert not verdict.allowed and "\x1b" not in verdict.reason


def test_non_string_command_is_refused() -> None:
    verdict = check_git_command(["git", "status"])  # type: ignore[arg-type]
    assert not verdict.allowed and "string" in verdict.reason


# -- the tokeniser -----------------------------------------------------------------------------


def test_words_keep_raw_and_value() -> None:
    segments = split_chain("git log --format='%h %s' -- a\\b \"c d\"")
    assert segments == [
        [
            Word("git", "git"),
            Word("log", "log"),
            Word("--format='%h %s'", "--format=%h %s"),
            Word("--", "--"),
            Word("a\\b", "ab"),  # bash drops the backslash: git receives "ab"
            Word('"c d"', "c d"),
        ]
    ]


def test_chain_segments() -> None:
    segments = split_chain("git status&&git diff ;git log")
    assert [[word.value for word in segment] for segment in segments] == [
        ["git", "status"],
        ["git", "diff"],
        ["git", "log"],
    ]


def test_quoted_metacharacters_are_plain_text() -> None:
    segments = split_chain("git grep 'a|b;c&d>e<f$(g)`h`*?[{x,y}]#'")
    assert segments[0][-1].value == "a|b;c&d>e<f$(g)`h`*?[{x,y}]#"


def test_double_quotes_keep_backslash_before_ordinary_character() -> None:
    assert split_chain('git log "a\\b"')[0][-1].value == "a\\b"


def test_adjacent_quoted_parts_form_one_word() -> None:
    assert split_chain("git log 'a'\"b\"c")[0][-1] == Word("'a'\"b\"c", "abc")


def test_unquoted_metacharacter_raises() -> None:
    with pytest.raises(ShellRefusal, match="pipes"):
        split_chain("git status | cat")


# -- differential check against real bash ------------------------------------------------------


def bash_argv(command: str) -> list[list[str]]:
    """What bash passes to `git` for each segment of an allowed command (git replaced by a printer)."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    script = "git() { printf '%s\\0' \"$@\"; printf '\\1'; }\n" + command
    # HOME="~" keeps tilde expansion from changing words, so only quoting and escapes are compared.
    result = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", script],
        capture_output=True,
        timeout=30,
        env={"HOME": "~", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    )
    assert result.returncode == 0, result.stderr
    segments = result.stdout.decode("utf-8").split("\x01")[:-1]
    return [segment.split("\x00")[:-1] for segment in segments]


@pytest.mark.parametrize("command", ALLOWED)
def test_words_are_what_bash_passes_to_git(command: str) -> None:
    ours = [[word.value for word in segment[1:]] for segment in split_chain(command)]
    assert ours == bash_argv(command)


@pytest.mark.parametrize(
    "command",
    [
        # git's pretty formats take a modifier between % and the placeholder: %-G? and % G? run gpg too
        "git log -1 --format=%-G?",
        "git log -1 --format=% G?",
        "git log -1 --format=%+GS",
        "git log -1 '--pretty=format:%h %-GK'",
        "git log -1 '--format=%<(5)%G?'",
        "git shortlog --format=%-G? HEAD",
        # ref-filter's signature atom verifies with gpg (branch, tag, for-each-ref)
        "git for-each-ref '--format=%(signature)'",
        "git for-each-ref '--format=%(signature:grade)'",
        "git branch '--format=%(signature:key)'",
        # parse-options takes unambiguous abbreviations of a checked option
        "git status --ignore-sub=none",
        "git status --ignore-submod=untracked",
        "git diff --submod=diff",
        "git for-each-ref '--form=%(signature)'",
    ],
)
def test_signature_placeholders_with_modifiers_and_abbreviated_checked_options_are_refused(
    command: str,
) -> None:
    verdict = check_git_command(command)
    assert not verdict.allowed, command


@pytest.mark.parametrize(
    "command",
    [
        "git log -1 '--format=%%G?'",  # a literal "%G?": no placeholder, no gpg
        "git log -1 '--format=%h %s'",
        "git for-each-ref '--format=%(refname) %(objectname:short)'",
        "git status --ignore-submodules=dirty",
        "git status --ignore-sub=dirty",
        "git diff --submodule=log",
    ],
)
def test_the_same_options_without_gpg_or_submodule_runs_are_allowed(command: str) -> None:
    verdict = check_git_command(command)
    assert verdict.allowed, (command, verdict.reason)


def test_the_gpg_rule_reads_placeholders_as_git_does() -> None:
    from planview.gate.git_formats import runs_gpg

    assert runs_gpg("%G?") and runs_gpg("%-G?") and runs_gpg("% GS") and runs_gpg("%+GK")
    assert runs_gpg("%<(8)%G?") and runs_gpg("%(signature:grade)") and runs_gpg("x %%%G?")
    assert not runs_gpg("%%G?") and not runs_gpg("%h %s") and not runs_gpg("%(contents:signature)")
