# fish completion for sandbox-run(1).
# SPDX-License-Identifier: Apache-2.0

complete -c sandbox-run -l mode -x -a 'read-only workspace-write danger-full-access' -d 'sandbox mode'
complete -c sandbox-run -l workspace -x -a '(__fish_complete_directories)' -d 'workspace root'
complete -c sandbox-run -l network -x -a 'deny allow' -d 'network decision'
complete -c sandbox-run -l allow-read -r -F -d 'an extra read-only root'
complete -c sandbox-run -l allow-write -r -F -d 'an extra writable root'
complete -c sandbox-run -l allow-unix -r -F -d 'a host unix socket the command may connect to'
complete -c sandbox-run -l backend -x -a 'auto native landlock bwrap' -d 'force a backend'
complete -c sandbox-run -l memory -x -d 'memory limit (K, M, G, T)'
complete -c sandbox-run -l pids -x -d 'process limit'
complete -c sandbox-run -l timeout -x -d 'kill the tree after SECONDS (exit 124)'
complete -c sandbox-run -l cwd -x -a '(__fish_complete_directories)' -d 'working directory'
complete -c sandbox-run -l env -x -a '(set -n)' -d 'pass NAME[=VALUE]'
complete -c sandbox-run -l env-file -r -F -d 'NAME=VALUE lines'
complete -c sandbox-run -l explain -d 'print what would run'
complete -c sandbox-run -l json -d 'JSON output'
complete -c sandbox-run -l allow-missing -d 'roots may not exist yet'
complete -c sandbox-run -l no-toolchains -d "keep HOME's toolchains hidden"
complete -c sandbox-run -l force-workspace -d 'allow /, a home or its ancestor'
complete -c sandbox-run -l accept-unprotected-git -d 'run where git cannot be protected'
complete -c sandbox-run -l help -d 'usage'
complete -c sandbox-run -l version -d 'version'
