#!/usr/bin/env bash
# The chatty fake agent of the daemon-sessions benchmark. Like test/fakes/agent/chatty-agent.sh it answers
# each line it reads ("<name> got: <line>"); besides:
#   CHAT <ms>  prints "<name> tick <n> at=<wall-clock seconds>" every <ms> (< 1000) until a line arrives
#   BURST <n>  prints <n> numbered lines at once (fills the terminal's scrollback)
# Builtins only (no sleep, no date): twenty of these must not load the machine themselves.
export LC_ALL=C
name="${1:-agent}"
echo "$name ready"
while IFS= read -r line; do
  case "$line" in
    CHAT\ *)
      ms=${line#CHAT }
      printf -v wait '0.%03d' "$ms"
      n=0
      while :; do
        n=$((n + 1))
        printf '%s tick %d at=%s\n' "$name" "$n" "$EPOCHREALTIME"
        IFS= read -r -t "$wait" line
        [ $? -gt 128 ] || break # a line (or end of input) stops the chat; a timeout goes on
      done
      echo "$name stopped chatting after $n ticks"
      ;;
    BURST\ *)
      for ((i = 1; i <= ${line#BURST }; i++)); do printf '%s burst line %d\n' "$name" "$i"; done
      echo "$name burst done"
      ;;
    *) echo "$name got: $line" ;;
  esac
done
