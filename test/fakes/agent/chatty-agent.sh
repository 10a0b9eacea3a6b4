#!/usr/bin/env bash
# A scripted fake agent for daemon tests: answers each line it reads, like a minimal chat agent.
#   LONG      prints 3,000 characters (more than the 1,500 threshold: arrives as a file)
#   SLEEP     works for a long time (so /cancel can interrupt it)
#   PWD       says which folder it runs in (a thread's worktree)
#   ASK       asks "Continue? (y/n)" and says what it was answered
#   EXIT      exits with code 3
#   anything  answered as "<name> got: <line>"
name="${1:-agent}"
trap 'echo "$name: interrupted"' INT
echo "$name ready"
while IFS= read -r line; do
  case "$line" in
    LONG) printf '%.0sxxxxxxxxxx' $(seq 1 300); echo ;;
    SLEEP) sleep 100 & wait $! ;;
    PWD) echo "$name in $(pwd)" ;;
    EXIT) exit 3 ;;
    ASK) printf 'Continue? (y/n) '; IFS= read -r answer; echo "$name answered: $answer" ;;
    *) echo "$name got: $line" ;;
  esac
done
