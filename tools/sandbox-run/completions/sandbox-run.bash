# bash completion for sandbox-run(1).                  -*- shell-script -*-
# SPDX-License-Identifier: Apache-2.0

_sandbox_run()
{
        local cur prev words cword i
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}

        # After "--" (or the first word that is not an option) it is the
        # command: complete commands, then its own arguments as files.
        for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                --)
                        if ((i + 1 == COMP_CWORD)); then
                                mapfile -t COMPREPLY < <(compgen -c -- "$cur")
                        else
                                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                        fi
                        return
                        ;;
                esac
        done

        case $prev in
        --mode)
                mapfile -t COMPREPLY < <(compgen -W "read-only workspace-write danger-full-access" -- "$cur")
                return ;;
        --network)
                mapfile -t COMPREPLY < <(compgen -W "deny allow" -- "$cur")
                return ;;
        --backend)
                mapfile -t COMPREPLY < <(compgen -W "auto native landlock bwrap" -- "$cur")
                return ;;
        --workspace|--cwd)
                mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                return ;;
        --allow-read|--allow-write|--allow-unix|--env-file|--policy)
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                return ;;
        --env)
                mapfile -t COMPREPLY < <(compgen -v -- "$cur")
                return ;;
        --memory|--pids|--timeout|--allow-host|--upstream-proxy)
                return ;;
        esac

        if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "--mode --workspace --network --allow-read
                        --allow-write --allow-unix --allow-host --upstream-proxy --backend --memory --pids --timeout --cwd
                        --env --env-file --policy --no-policy --explain --json --observe-reads --allow-missing
                        --no-toolchains --force-workspace --accept-unprotected-git --help
                        --version --" -- "$cur")
        fi
}
complete -F _sandbox_run sandbox-run
