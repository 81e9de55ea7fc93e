"""`kvplan scaffold DIR MODEL [fit flags]`: write the launch files of a sized deployment."""

from __future__ import annotations

from typing import Optional

import typer

from kvplan.cli import (FitFlags, app, console, err_console, fit_options_deployable_auto, from_option, plan_from_flags,
                        read_from)


@app.command()
@fit_options_deployable_auto
def scaffold(
    directory: str = typer.Argument(..., metavar="DIR", help="Directory to write the project into."),
    model: Optional[str] = typer.Argument(None, help="Model (Hub id, catalog name or local folder); with --from, the command's."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that already exist."),
    served_model_name: Optional[str] = typer.Option(None, "--served-model-name",
                                                    help="Name clients use (default: the model's repo name)."),
    port: int = typer.Option(8000, "--port", help="HTTP port of the server."),
    from_command: Optional[str] = from_option("Its --port and --served-model-name are written too, and its other server flags are named as not written."),
    *,
    flags: FitFlags,
) -> None:
    """Write pyproject.toml, .env.example, serve.sh, docker-compose.yml, client.py, README.md and k8s/.

    Examples:
    $ kvplan scaffold deploy Qwen/Qwen3-8B --gpu L4 --max-model-len 16384
    $ kvplan scaffold out Qwen/Qwen3-32B --gpu H100 -tp 2 --served-model-name qwen
    $ kvplan scaffold out --gpu L4 --from 'vllm serve Qwen/Qwen3-8B --port 8001'
    """
    from kvplan.deploy import PROBE_MARGIN, refuse_platform, render_files, spec_from_plan, write_files
    from kvplan.errors import InputError

    if not directory.strip():  # Path("") is the current folder: an unset shell variable would write the files here
        raise InputError("DIR", "an empty folder name", "give the folder to write the project into, e.g. kvplan scaffold "
                         "./deploy MODEL")
    left_out: tuple = ()
    model, flags, command = read_from(model, flags, from_command)
    if command is not None:  # the server flags scaffold writes itself taken from it
        for name, given, default in (("port", port, 8000), ("served_model_name", served_model_name, None)):
            if name in command.server:
                value = command.server[name]
                if "$" in str(value):  # a variable with no value (launch_vars): scaffold would write it as a value
                    raise InputError(f"--{name.replace('_', '-')}", f"the command's is {value}, a variable with no "
                                     "value", f"give --env {str(value).strip('${}').split(':')[0]}=VALUE, or "
                                     f"--{name.replace('_', '-')} VALUE with the variable's value written in the command")
                names = str(value).split() if name == "served_model_name" else [str(value)]
                if len(names) > 1:  # vllm serve answers to each; scaffold's files (SERVED_MODEL_NAME) serve one
                    if given is None:
                        raise InputError("--served-model-name", f"the command serves {len(names)} names ("
                                         f"{', '.join(names)}), and scaffold's files serve one (SERVED_MODEL_NAME, "
                                         "the name its client sends)", f"give --served-model-name {names[0]} (or another "
                                         "of them) to write that one")
                    if given not in names:
                        raise InputError("--served-model-name", f"{given} is given, and the command serves "
                                         f"{', '.join(names)}", "give one of the command's names")
                    continue
                if given != default and str(given) != str(value):
                    raise InputError(f"--{name.replace('_', '-')}", f"{given} is given, and the command sets {value}",
                                     f"drop --{name.replace('_', '-')} (the command's is written), or make them agree")
                if name == "port":
                    port = value
                else:
                    served_model_name = str(value)
        left_out = tuple(f for f in command.not_planned if f not in ("--port", "--served-model-name", "--host"))
    if model is None:
        raise InputError("MODEL", "no model given", "kvplan scaffold DIR MODEL ..., or kvplan scaffold DIR --from "
                         "'vllm serve MODEL ...'")
    plan = plan_from_flags(model, flags, gpu_auto=True, deployable=True)
    refuse_platform(plan.gpu, str(plan.vllm_version))  # before the verdict: no fix makes files for this card start
    if not plan.fits:
        # Never write a launch command that vLLM refuses at startup.
        from rich.markup import escape  # vLLM's words are text, not markup: "Reasons: ...: [block_size not supported]"

        err_console.print(f"[bold red]error:[/] the plan does not fit, so no files were written. vLLM would say: "
                          f"{escape(plan.error or '')}", highlight=False, soft_wrap=True)
        from kvplan.render import try_lines

        for line in try_lines(plan):
            err_console.print(escape(line), highlight=False, soft_wrap=True)
        raise SystemExit(1)
    spec = spec_from_plan(plan, served_model_name=served_model_name, port=port)
    written = write_files(directory, render_files(spec), force=force)
    from rich.markup import escape

    from kvplan.render import Breakable, warning_text

    if left_out:  # the command's flags serve.sh does not carry: said, not dropped unseen
        err_console.print(f"not written to serve.sh (they move no GPU memory; add them if you need them): "
                          f"{', '.join(left_out)}", highlight=False, soft_wrap=True)
    for w in plan.warnings:  # as fit and sweep print them (a release kvplan has no rules for, a site calibration, ...)
        err_console.print(warning_text(str(w)), highlight=False, soft_wrap=True)
    # a folder, file or model id longer than the line breaks after a '/' (then a '-' or '_'), where rich folded it at
    # the last column ("...-of-this-mod" / "el/serve.sh")
    console.print(Breakable(escape(f"Wrote {len(written)} files to {directory} for {spec.model_id} on "
                                   f"{spec.gpus} x {spec.gpu_name} (vLLM {spec.vllm_version}):"), "/", "-_"), highlight=False)
    for path in written:
        console.print(Breakable(escape(f"  {path}"), "/", "-_"), highlight=False)
    # the k8s probe starts after the init container's download (the weights are on the volume by then); compose's
    # grace covers the download too: say which start each covers, or 140 s < 162 s reads as a bug
    download = spec.startup_first.download_s
    first = f"~{download:.0f} s of it downloading" if download >= 0.5 else "cold compile cache"
    console.print(f"Predicted startup: ~{spec.startup_first.total_s:.0f} s first start ({first}), "
                  f"~{spec.startup_restart.total_s:.0f} s restart. The k8s startupProbe allows {spec.probe_budget_s} s "
                  f"({PROBE_MARGIN:g}x the ~{spec.probe_start.total_s:.0f} s start from the volume), the compose healthcheck "
                  f"{spec.compose_start_period_s} s.", highlight=False)  # kvplan's words: wrapped between words
