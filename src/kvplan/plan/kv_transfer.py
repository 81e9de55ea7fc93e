"""--kv-transfer-config: the KV connector a deployment names, as each vLLM release reads it.

What kvplan models (vLLM source: config.py 0.6.5-0.10.1, config/__init__.py 0.10.2-0.11.x, config/vllm.py and
config/kv_transfer.py 0.12.0-0.34.0, distributed/kv_transfer/kv_connector/factory.py and v1/*, engine/arg_utils.py):

- the flag's checks: KVTransferConfig's kv_role values and the kv_role a kv_connector needs (refused as the flag is
  read, with vLLM's text); the connector names the release registers (rules row kv_connector_names; refused with the
  release's text unless kv_connector_module_path loads an external class); a V0 connector on the V1 engine and a V1
  connector on V0 (the factory's asserts);
- the hybrid KV-cache manager: VllmConfig.__post_init__ turns it off for a connector (rules rows kv_transfer_hybrid,
  kv_connectors_hma, kv_transfer_hybrid_warning), which plan.kv then treats as --disable-hybrid-kv-cache-manager does
  (sliding-window and chunked-local layers beside full attention held as full attention, one group);
- 0.8.0-0.8.4 run the V0 engine for it (rules row v0_for_kv_transfer, plan.args.v1_fallback).

Not modelled, and said in a warning: the connector's own memory (transfer buffers, NIXL registrations, LMCache's
staging buffers, offloading's host blocks), which kvplan has not pinned in the source per connector and release.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan.args import EngineArgs, kv_transfer_object
from kvplan.versions import VersionRules

# the NIXL connectors, whose kv_buffer_device "cpu" keeps host transfer buffers (rules row nixl_host_buffer)
_NIXL_HOST_BUFFER = ("NixlConnector", "NixlPullConnector", "NixlPushConnector")

# KVRole's values (config/kv_transfer.py: Literal[KVProducer, KVConsumer]; 'kv_producer', 'kv_consumer', 'kv_both' in
# config.py 0.6.5-0.8.x)
KV_ROLES = ("kv_producer", "kv_both", "kv_consumer")


@dataclass(frozen=True)
class KVTransfer:
    """The fields of --kv-transfer-config kvplan reads: the connector's name, its role, the module an external
    connector is loaded from, and MultiConnector's children (kv_connector_extra_config["connectors"])."""

    connector: str | None
    role: str | None
    module_path: str | None = None
    children: tuple["KVTransfer", ...] = ()
    buffer_device: str | None = None  # kv_buffer_device as given (None: the default, cuda)

    @property
    def name(self) -> str:
        return self.connector or "no kv_connector"


def kv_transfer_of(args: EngineArgs) -> KVTransfer | None:
    """--kv-transfer-config as a KVTransfer, None where it is not given. InputError where it is not a JSON object."""
    obj = kv_transfer_object(args.kv_transfer_config)
    return None if obj is None else _from_dict(obj, "--kv-transfer-config")


def _from_dict(obj: dict, where: str) -> KVTransfer:
    def text(key: str) -> str | None:
        v = obj.get(key)
        if v is not None and not isinstance(v, str):
            raise InputError(where, f"{key} must be a string, got {v!r}",
                             'e.g. \'{"kv_connector": "NixlConnector", "kv_role": "kv_both"}\'')
        return v

    connector, role, module = text("kv_connector"), text("kv_role"), text("kv_connector_module_path")
    device = text("kv_buffer_device")
    children: tuple[KVTransfer, ...] = ()
    extra = obj.get("kv_connector_extra_config")
    if connector == "MultiConnector" and isinstance(extra, dict) and isinstance(extra.get("connectors"), list):
        children = tuple(_from_dict(c, f"{where} connectors[{i}]") for i, c in enumerate(extra["connectors"])
                         if isinstance(c, dict))
    return KVTransfer(connector, role, module, children, device)


def kv_transfer_refusal(args: EngineArgs, rules: VersionRules, check_release: bool = True) -> None:
    """vLLM's refusals of --kv-transfer-config: the kv_role checks KVTransferConfig makes as the flag is read (always),
    and, with `check_release` (the release is the one run), the keys it does not have (0.16+, rules row
    kv_transfer_fields), the connector names the release does not register or that belong to the other engine (the
    factory, as the engine starts)."""
    kt = kv_transfer_of(args)
    if kt is None:
        return
    fields = rules.kv_transfer_fields
    if check_release and fields is not None:
        obj = kv_transfer_object(args.kv_transfer_config)
        extra = obj.get("kv_connector_extra_config")
        # MultiConnector builds each child as KVTransferConfig(**child) (multi_connector.py): the same refusal
        children = extra.get("connectors") if obj.get("kv_connector") == "MultiConnector" and isinstance(extra, dict) else None
        keys = list(obj) + [k for c in (children if isinstance(children, list) else []) if isinstance(c, dict) for k in c]
        unknown = list(dict.fromkeys(k for k in keys if k not in fields))
        if unknown:
            raise RefusedByVLLMError("--kv-transfer-config", f"vLLM {rules.version}'s KVTransferConfig has no field "
                                     f"{', '.join(map(repr, unknown))} and refuses any other key as the flag is read (a MultiConnector child's "
                                     "as it builds the child) "
                                     f"(pydantic ValidationError: \"{unknown[0]}: Unexpected keyword argument\")",
                                     f"leave out {', '.join(unknown)}; its fields: {', '.join(fields)}",
                                     rule="kv_transfer_fields")
    for one in (kt,) + kt.children:
        _role_refusal(one, rules)
        if check_release:
            _name_refusal(one, rules)
    if check_release:
        explicit_on_refusal(args, rules)


def _role_refusal(kt: KVTransfer, rules: VersionRules) -> None:
    if kt.role is not None and kt.role not in KV_ROLES:
        raise RefusedByVLLMError("--kv-transfer-config", f"vLLM {rules.version} refuses kv_role {kt.role!r} "
                                 f"(ValueError: \"Unsupported kv_role: {kt.role}. Supported roles are "
                                 f"{rules.kv_roles_said}\")", "kv_role one of kv_producer, kv_consumer, kv_both",
                                 rule="kv_role")
    if kt.connector is not None and kt.role is None:
        raise RefusedByVLLMError("--kv-transfer-config", f"vLLM {rules.version} refuses kv_connector {kt.connector} "
                                 f"without a kv_role (ValueError: \"Please specify {rules.kv_role_missing_word} when "
                                 f"kv_connector is set, supported roles are {rules.kv_roles_said}\")",
                                 'add "kv_role": "kv_both" (or kv_producer / kv_consumer)', rule="kv_role")


def _name_refusal(kt: KVTransfer, rules: VersionRules) -> None:
    name = kt.connector
    if name is None:
        return
    known = rules.kv_connector_names
    if name not in known:
        if rules.kv_connector_refused_at == "module_path" and kt.module_path:
            return  # an external connector, loaded by the factory from kv_connector_module_path
        said = (f"Unsupported kv_connector: {name}. Supported connectors are {list(known)}."
                if rules.kv_connector_refused_at == "config" else f"Unsupported connector type: {name}")
        raise RefusedByVLLMError("--kv-transfer-config", f"vLLM {rules.version} registers no KV connector {name!r} "
                                 f"(ValueError: \"{said}\")", f"one of {', '.join(known)}"
                                 + (", or load your own with kv_connector_module_path"
                                    if rules.kv_connector_refused_at == "module_path" else ""), rule="kv_connector")
    v0 = name in rules.kv_connectors_v0
    if rules.is_v1 and v0:
        raise RefusedByVLLMError("--kv-transfer-config", f"{name} is a V0-engine connector, and vLLM {rules.version} runs "
                                 "this deployment on its V1 engine, whose connector factory asserts it "
                                 "(AssertionError: assert issubclass(connector_cls, KVConnectorBase_V1))",
                                 "name a V1 connector: " + ", ".join(n for n in known if n not in rules.kv_connectors_v0),
                                 rule="kv_connector")
    if not rules.is_v1 and not v0:
        raise RefusedByVLLMError("--kv-transfer-config", f"{name} is a V1-engine connector, and vLLM {rules.version} runs "
                                 "this deployment on its V0 engine, whose connector factory asserts it "
                                 "(AssertionError: assert issubclass(connector_cls, KVConnectorBase))",
                                 "name a V0 connector: " + ", ".join(rules.kv_connectors_v0 if rules.kv_connectors_v0
                                                                     else known), rule="kv_connector")


def _supports_hma(kt: KVTransfer, rules: VersionRules) -> bool | None:
    """Whether the connector's class subclasses SupportsHMA in the release (MultiConnector: every child does); None
    for an external connector (kv_connector_module_path), whose class kvplan cannot read."""
    if kt.connector is None:
        return False
    if kt.connector not in rules.kv_connector_names:
        return None
    if kt.connector == "MultiConnector":
        said = [_supports_hma(c, rules) for c in kt.children]
        return None if None in said else all(said)
    return kt.connector in rules.kv_connectors_hma


def manager_off_by_connector(args: EngineArgs, rules: VersionRules) -> str | None:
    """'--kv-transfer-config (NAME)' where the connector turns the hybrid KV-cache manager off in this release (rules
    row kv_transfer_hybrid), else None: not given, no manager (before 0.9.1, or the V0 engine), the manager already
    off by --disable-hybrid-kv-cache-manager (vLLM's connector check is skipped then), or a connector subclassing
    SupportsHMA from 0.22. An external connector from 0.22 on is taken not to subclass it (as the base class does
    not): said in kv_transfer_says."""
    kt = kv_transfer_of(args)
    if kt is None or not rules.hybrid_kv_manager or not rules.is_v1 or rules.kv_transfer_hybrid == "none":
        return None
    if args.disable_hybrid_kv_cache_manager or explicitly_on(args, rules):
        return None
    if rules.kv_transfer_hybrid == "unless_hma" and _supports_hma(kt, rules):
        return None
    return f"--kv-transfer-config ({kt.name})"


def explicitly_on(args: EngineArgs, rules: VersionRules) -> bool:
    """--no-disable-hybrid-kv-cache-manager where it keeps the manager on against a connector (0.13+, rules row
    hybrid_flag_explicit_on); up to 0.12 it is the flag's default, False, which a connector still overrides."""
    return args.disable_hybrid_kv_cache_manager is False and rules.hybrid_flag_explicit_on


def explicit_on_refusal(args: EngineArgs, rules: VersionRules) -> None:
    """vLLM's refusal of --no-disable-hybrid-kv-cache-manager with a connector whose class does not subclass
    SupportsHMA (KVConnectorFactory.create_connector, 0.13+: the factory checks the class; MultiConnector is taken by
    its children here, as supports_hma_config reads it from 0.23)."""
    kt = kv_transfer_of(args)
    if kt is None or not explicitly_on(args, rules) or not rules.is_v1:
        return
    if _supports_hma(kt, rules) is False:
        raise RefusedByVLLMError("--no-disable-hybrid-kv-cache-manager", f"{kt.name} does not subclass SupportsHMA in "
                                 f"vLLM {rules.version}, which refuses it with the hybrid KV-cache manager kept on "
                                 f"(ValueError: \"Connector {kt.name} does not support HMA but HMA is enabled. Please set "
                                 "`--disable-hybrid-kv-cache-manager`.\")",
                                 "leave out --no-disable-hybrid-kv-cache-manager (vLLM then turns the manager off for "
                                 "the connector)" + (f", or use a connector that subclasses SupportsHMA: "
                                                     f"{', '.join(rules.kv_connectors_hma)}" if rules.kv_connectors_hma
                                                     else ""), rule="hma_connector")


def kv_transfer_says(args: EngineArgs, rules: VersionRules) -> tuple[list[str], list[str]]:
    """The notes and warnings of a --kv-transfer-config: what the release does with the hybrid manager for the
    connector (vLLM's warning where it turns it off), and the connector memory kvplan does not charge."""
    kt = kv_transfer_of(args)
    if kt is None:
        return [], []
    notes: list[str] = []
    warns: list[str] = []
    off = manager_off_by_connector(args, rules)
    role = f", kv_role {kt.role}" if kt.role else ""
    children = f" (children: {', '.join(c.name for c in kt.children)})" if kt.children else ""
    if off and rules.kv_transfer_hybrid_warning:
        warns.append(rules.kv_transfer_hybrid_warning.replace("%s", kt.name))
    if not rules.is_v1 or not rules.hybrid_kv_manager or rules.kv_transfer_hybrid == "none":
        notes.append(f"--kv-transfer-config: {kt.name}{children}{role}; vLLM {rules.version} has no hybrid KV-cache "
                     "manager for it to turn off")
    elif explicitly_on(args, rules):
        notes.append(f"--kv-transfer-config: {kt.name}{children}{role}; --no-disable-hybrid-kv-cache-manager keeps the "
                     f"hybrid KV-cache manager on (vLLM {rules.version} turns it off for a connector only where the flag "
                     "is not given)")
    elif args.disable_hybrid_kv_cache_manager:
        notes.append(f"--kv-transfer-config: {kt.name}{children}{role}; the hybrid KV-cache manager is off by "
                     "--disable-hybrid-kv-cache-manager already, so vLLM's connector check changes nothing")
    elif off:
        why = ("any --kv-transfer-config turns it off" if rules.kv_transfer_hybrid == "off" else
               f"{kt.name} does not subclass SupportsHMA" if _supports_hma(kt, rules) is False else
               f"kvplan cannot read whether the external {kt.name} subclasses SupportsHMA (the base class does not): "
               "taken as not")
        notes.append(f"--kv-transfer-config: {kt.name}{children}{role}; vLLM {rules.version} turns the hybrid KV-cache "
                     f"manager off ({why}; VllmConfig.__post_init__): sliding-window and chunked-local layers beside "
                     "full-attention ones are held as full attention, as under --disable-hybrid-kv-cache-manager")
    else:
        notes.append(f"--kv-transfer-config: {kt.name}{children}{role}; it subclasses SupportsHMA, so vLLM "
                     f"{rules.version} keeps the hybrid KV-cache manager on")
    nixl = [c for c in (kt,) + kt.children if c.connector in _NIXL_HOST_BUFFER and c.buffer_device == "cpu"]
    if nixl and rules.is_v1 and rules.nixl_host_buffer:
        notes.append(f"--kv-transfer-config {nixl[0].name} with kv_buffer_device cpu: vLLM {rules.version} keeps a host "
                     "copy of every KV-cache tensor to transfer from (initialize_host_xfer_buffer: torch.empty on the CPU "
                     "with the KV cache's shape), so each rank needs host RAM as large as its KV pool; the GPU budget is "
                     "the same")
    warns.append(f"--kv-transfer-config {kt.name}: kvplan charges no GPU memory for the connector itself (transfer or "
                 "staging buffers, registrations, its worker threads' CUDA context); it has not pinned that per "
                 "connector and release. Memory it takes before vLLM measures the free memory makes the KV pool "
                 "smaller than predicted; memory taken after the KV cache is allocated can run the GPU out of memory")
    return notes, warns
