// kvplan web page: a form whose state lives in the query string, and views of the JSON API.
// No arithmetic about vLLM here: every number shown comes from /api/plan, /api/sweep, ...
"use strict";

const FIELDS = ["model", "revision", "gpu", "gpu_gib", "gpu_kinds", "num_gpus", "wsl2", "max_model_len", "concurrency",
  "gpu_memory_utilization", "kv_cache_dtype", "tensor_parallel_size", "max_num_seqs", "dtype", "quantization", "enforce_eager",
  "kv_cache_memory_bytes", "compilation_config", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "speculative_config", "limit_mm_per_prompt", "skip_mm_profiling", "entrypoint",
  "runner", "enable_extensible_kv_cache", "gdn_prefill_backend",
  "enable_sleep_mode", "disable_custom_all_reduce", "disable_hybrid_kv_cache_manager", "disable_sliding_window", "kv_transfer_config", "load_format", "moe_backend",
  "decode_context_parallel_size", "prefill_context_parallel_size", "dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size",
  "enable_prefix_caching", "mamba_cache_dtype", "mamba_block_size",
  "num_gpu_blocks_override", "calculate_kv_scales", "async_scheduling", "vllm_version"];
// sent as JSON numbers; max_model_len goes as typed (32k, 32K, -1, auto): the server reads it as the CLI does
const NUMBERS = new Set(["gpu_gib", "num_gpus", "concurrency", "gpu_memory_utilization", "tensor_parallel_size", "max_num_seqs",
  "max_cudagraph_capture_size", "decode_context_parallel_size", "prefill_context_parallel_size", "dcp_kv_cache_interleave_size",
  "cp_kv_cache_interleave_size", "mamba_block_size", "num_gpu_blocks_override"]);
// switches whose default is the release's (a select of "", "true", "false"): sent as JSON booleans, left out when ""
// ("false" is the flag's --no- form: --no-disable-hybrid-kv-cache-manager, --no-async-scheduling, ...)
const SWITCHES = new Set(["enable_extensible_kv_cache", "async_scheduling", "disable_hybrid_kv_cache_manager", "enable_prefix_caching"]);
const DEFAULTS = { model: "Qwen/Qwen2.5-0.5B-Instruct", gpu: "tesla-t4", max_model_len: "4096" };
const SLIDER_MIN_TOKENS = 256;

const $ = (id) => document.getElementById(id);
const state = { showAllGpus: false, lastValues: {}, gpus: [], features: {}, planSeq: 0, tableSeq: 0, modelLimit: 131072, timer: null, lastPlan: null,
  // the pasted command the form was last filled from (null: none), and the fields it filled: {field: the value before}
  commandText: null, filledByCommand: {} };

// ------------------------------------------------------------------ API

async function api(path, body, raw) {
  const opts = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": raw ? (raw.type || "application/octet-stream") : "application/json" },
    body: raw ? raw : JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({ field: "request", message: `HTTP ${res.status}`, fix: null }));
  if (!res.ok) { const e = new Error(data.message || `HTTP ${res.status}`); e.body = data; e.status = res.status; throw e; }
  return data;
}

// ------------------------------------------------------------------ form state <-> query string

// a max_model_len that asks for "auto" (the largest length at which N requests fit), as plan.is_auto_length reads it
const isAutoLength = (v) => String(v ?? "").trim().toLowerCase() === "auto";

function readForm() {
  const out = {};
  for (const name of FIELDS) {
    const el = $(name);
    if (el.type === "checkbox") { if (el.checked) out[name] = true; continue; }
    const v = el.value.trim();
    if (v !== "") out[name] = v;
  }
  const command = $("from_command").value;
  if (command.trim() !== "") out.from_command = command;  // sent as typed: the server reads it as `kvplan fit --from`
  if (out.gpu === "custom") { delete out.gpu; } else { delete out.gpu_gib; }
  if (out.gpu !== "auto") delete out.gpu_kinds;  // the kinds of card only --gpu auto searches (refused beside a named GPU)
  if (!isAutoLength(out.max_model_len)) delete out.concurrency;
  return out;
}

function writeForm(values) {
  $("from_command").value = values.from_command || "";
  if (values.from_command) $("from-box").open = true;
  for (const name of FIELDS) {
    const el = $(name);
    const v = values[name];
    if (el.type === "checkbox") el.checked = v === true || v === "1" || v === "true";
    else if (v !== undefined) el.value = v;
  }
  const sel = $("gpu");
  if (values.gpu && ![...sel.options].some((o) => o.value === values.gpu)) {
    sel.appendChild(new Option(values.gpu, values.gpu));  // an alias from a shared URL ("H100"): the server resolves it
    sel.value = values.gpu;
  }
  if (values.gpu_gib && !values.gpu) sel.value = "custom";
  syncCustomGpu();
  syncConcurrency();
  syncSliderFromNumber();
}

function formFromUrl() {
  const q = new URLSearchParams(location.search);
  const values = { ...DEFAULTS };
  if ([...q.keys()].length) for (const k of Object.keys(DEFAULTS)) delete values[k];
  for (const name of FIELDS) if (q.has(name)) values[name] = q.get(name);
  // a switch given as "1" (a link from when disable_hybrid_kv_cache_manager was a checkbox) is "true"
  for (const name of SWITCHES) if (values[name] === "1") values[name] = "true";
  if (q.has("from_command")) values.from_command = q.get("from_command");
  return values;
}

function saveUrl(values) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) q.set(k, v === true ? "1" : v);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

function planBody(values) {
  const body = {};
  for (const [k, v] of Object.entries(values)) {
    body[k] = SWITCHES.has(k) && (v === "true" || v === "false") ? v === "true"
      : NUMBERS.has(k) && v !== "" && !isNaN(Number(v)) ? Number(v) : v;
  }
  return body;
}

// ------------------------------------------------------------------ errors next to fields

function fieldKey(field) {
  let key = String(field || "").replace(/^--/, "").replace(/-/g, "_").split("/")[0];
  if (key.startsWith("no_") && FIELDS.includes(key.slice(3))) key = key.slice(3);  // a switch's --no- form: its select
  if (key === "config.json" || key === "checkpoint") return "model";
  if (key === "gpu_gb") return "gpu_gib";
  return key;
}

function clearErrors() {
  document.querySelectorAll("#form .err").forEach((el) => { el.textContent = ""; });
  document.querySelectorAll("#form .invalid").forEach((el) => el.classList.remove("invalid"));
}

// the CLI's flags in a message, as the boxes of this page
function pageWords(text) {
  return String(text).replace(/--gpu-gib( N| [0-9.]+)?/g, "the GiB box")
    .replace("add capacity: true", "tick 'find the capacity at the SLO'");
}

function showError(err, fallbackId) {
  const b = err.body || { field: "request", message: err.message };
  const text = pageWords(b.message + (b.fix ? ` — ${b.fix}` : ""));
  const key = fieldKey(b.field);
  const slot = document.querySelector(`#form .err[data-for="${key}"]`);
  const target = slot || $(fallbackId || "form-error");
  target.textContent = text;
  target.dataset.field = b.field;
  if (slot && $(key)) $(key).classList.add("invalid");
}

// ------------------------------------------------------------------ rendering the plan

function fmtInt(n) { return Number(n).toLocaleString("en-US"); }

function markStale(stale) {
  $("plan").classList.toggle("stale", stale);
  $("stale-note").hidden = !stale;
}

function renderPlan(p) {
  state.lastPlan = p;
  markStale(false);
  const v = $("verdict");
  v.textContent = p.verdict;
  v.className = "verdict " + (p.fits ? "ok" : "bad");
  v.dataset.fits = p.fits;
  v.dataset.kvCacheTokens = p.kv_cache_tokens;
  v.dataset.maxConcurrency = p.max_concurrency;
  $("summary").innerHTML = "";
  const a = p.args;
  // fit's box as `kvplan fit` prints it, a row each, in the server's words (render.plan_rows): the model, GPU, release,
  // flags, KV per token, weights, requested memory, the KV cache (with the pool a first, compiling start gets), a 0.34
  // extensible KV cache's capacity, blocks, tokens, concurrency
  const rows = [...(p.summary_rows || [])];
  if (p.inverse) rows.unshift(["note", p.inverse]);
  for (const [k, val] of rows) {
    const d = document.createElement("div");
    d.innerHTML = "<b></b> <span></span>";
    d.firstChild.textContent = k;
    d.lastChild.textContent = val;
    $("summary").appendChild(d);
  }
  renderFixes(p.fixes || []);
  $("budget").innerHTML = p.svg.budget;
  $("curve").innerHTML = p.svg.concurrency;
  $("band").textContent = p.uncertainty ? p.uncertainty.text : "";
  $("log").textContent = (p.vllm_log || []).join("\n");
  $("assumptions").innerHTML = "";
  for (const s of [...(p.assumptions || []), ...(p.warnings || []).map((w) => "warning: " + w)]) {
    const li = document.createElement("li"); li.textContent = s; $("assumptions").appendChild(li);
  }
  if (p.model_max_model_len) state.modelLimit = p.model_max_model_len;
  if (!$("max_model_len").value) $("max_model_len").placeholder = `model limit (${fmtInt(a.max_model_len)})`;
  syncSliderFromNumber(a.max_model_len);
}

function shellQuote(v) {  // Python's shlex.quote: bare when only safe characters, else in single quotes
  const s = String(v);
  if (s && /^[\w@%+=:,.\/-]+$/.test(s)) return s;
  return "'" + s.replace(/'/g, "'\"'\"'") + "'";
}

function renderFixes(fixes) {
  const box = $("fixes");
  box.innerHTML = "";
  if (!fixes.length) return;
  const h = document.createElement("h2"); h.textContent = "Nearest fixes"; box.appendChild(h);
  const ul = document.createElement("ul"); ul.className = "fixes";
  for (const f of fixes) {
    const li = document.createElement("li");
    li.className = f.fits ? "ok" : "warn";
    // as plan.fix_command_text writes it: a switch (true) is the bare flag, a value quoted as shlex.quote does
    const flags = Object.entries(f.flags).map(([k, v]) => `--${k.replace(/_/g, "-")}` + (v === true ? "" : ` ${shellQuote(v)}`)).join(" ");
    li.innerHTML = "<b></b> <code></code> <span></span> ";
    li.children[0].textContent = f.name;
    li.children[1].textContent = flags;
    li.children[2].textContent = "→ " + f.effect;
    if (Object.keys(f.flags).every((k) => FIELDS.includes(k))) {  // a fix the form can hold: one click applies it
      const btn = document.createElement("button");
      btn.type = "button"; btn.textContent = "apply";
      btn.addEventListener("click", () => applyFix(f.flags));
      li.appendChild(btn);
    }
    ul.appendChild(li);
  }
  box.appendChild(ul);
}

function applyFix(flags) {
  for (const [k, v] of Object.entries(flags)) {
    if (k === "gpu") {
      const g = state.gpus.find((x) => x.name === v || x.id === v);
      if (g) $("gpu").value = g.id;
    } else if ($(k).type === "checkbox") {
      $(k).checked = v === true;
    } else {
      if ($(k).tagName === "SELECT" && ![...$(k).options].some((o) => o.value === String(v))) $(k).appendChild(new Option(String(v)));
      $(k).value = String(v);
    }
  }
  syncCustomGpu();
  syncGpuLabels();
  syncConcurrency();
  syncSliderFromNumber();
  schedule(0);
}

// ------------------------------------------------------------------ the GPU table (a sweep over the catalog)

async function refreshGpuTable(values, seq) {
  const ids = state.gpus.map((g) => g.id);
  const body = planBody(values);
  // the form's GPU and TP are sent as they are: the server says that the table's vary replaced them (data.notes);
  // the GPUs available (num_gpus) would refuse the larger TP rows, so the table lists them all
  delete body.num_gpus;
  if (isAutoLength(body.max_model_len) && state.lastPlan) {
    // the length 'auto' chose for this plan: the table lists the GPUs that start the plan at it
    body.max_model_len = String(state.lastPlan.args.max_model_len);
    delete body.concurrency;
  }
  body.vary = [`gpu=${ids.join(",")}`, "tensor_parallel_size=1,2,4,8"];
  body.curve = false;
  const table = $("gpu-table");
  table.dataset.state = "loading";
  let data;
  try { data = await api("/api/sweep", body); } catch (e) { return; }
  if (seq !== state.tableSeq) return;
  // the GPU x TP combinations that start, smallest total memory first, each row's cells and title and the note under
  // the table as the server words them (render.gpu_table): the page shows them as they stand
  const fit = data.gpu_table.rows;
  const tbody = document.querySelector("#gpu-table tbody");
  tbody.innerHTML = "";
  const first = data.gpu_table.first_rows;
  const shown = state.showAllGpus ? fit : fit.slice(0, first);
  for (const r of shown) {
    const tr = document.createElement("tr");
    if (r.gpu === $("gpu").value && String(r.tensor_parallel_size) === ($("tensor_parallel_size").value || "1")) tr.className = "chosen";
    // a card that starts warm but whose first, compiling start may be refused (fit's cold-start warning) is marked
    if (r.first_start_refused) tr.classList.add("cold-risk");
    if (r.title) tr.title = r.title;
    for (const cell of r.cells) {
      const td = document.createElement("td"); td.textContent = cell; tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
  $("gpu-table-note").textContent = data.gpu_table.note;
  $("gpu-more").hidden = fit.length <= first;
  $("gpu-more").textContent = state.showAllGpus ? data.gpu_table.show_fewer : data.gpu_table.show_all;
  table.dataset.key = JSON.stringify([values.model || "", values.gpu || "", values.max_model_len || ""]);
  table.dataset.state = "ready";
}

// ------------------------------------------------------------------ live update

async function refresh() {
  let values = readForm();
  const seq = ++state.planSeq;
  if ((values.from_command ?? null) !== state.commandText) {
    // a command pasted, changed or cleared: the form's fields it sets take its values (the server reads it, as
    // /api/plan will: /api/from_command), the fields an earlier command filled and this one does not get theirs back
    let read = null;
    if (values.from_command !== undefined) {
      try {
        const body = { from_command: values.from_command };
        if (values.vllm_version) body.vllm_version = values.vllm_version;
        read = (await api("/api/from_command", body)).from_command;
      } catch (e) {
        if (seq !== state.planSeq) return;
        saveUrl(values);
        clearErrors();
        showError(e);
        renderFromCommand(null);
        $("verdict").className = "verdict stale";
        markStale(true);
        return;
      }
      if (seq !== state.planSeq) return;
    }
    fillFromCommand(read);
    state.commandText = values.from_command ?? null;
    values = readForm();
  }
  saveUrl(values);
  if ($("gpu").value === "custom" && !values.gpu_gib) {  // no size: nothing to plan yet
    clearErrors();
    showError({ body: { field: "gpu_gib", message: "give the card's memory in GiB, as CUDA reports it", fix: "e.g. 23.58" } });
    $("verdict").className = "verdict stale";
    markStale(true);
    return;
  }
  try {
    const p = await api("/api/plan", planBody(values));
    if (seq !== state.planSeq) return;
    clearErrors();
    renderPlan(p);
    renderFromCommand(p.from_command || null);
    state.tableSeq = seq;
    state.lastValues = values;
    refreshGpuTable(values, seq);
  } catch (e) {
    if (seq !== state.planSeq) return;
    clearErrors();
    showError(e);
    $("verdict").className = "verdict stale";
    markStale(true);
  }
}

// the form's field a command's flag is (--max-model-len -> max_model_len), or null where the form has none
function commandField(flag) {
  const name = flag.replace(/^--/, "").replace(/-/g, "_");
  return FIELDS.includes(name) ? name : null;
}

function setField(name, v) {
  const el = $(name);
  if (el.type === "checkbox") { el.checked = v === true || v === "true"; return; }
  const text = v === null || v === undefined ? "" : String(v);
  if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === text)) el.appendChild(new Option(text, text));
  el.value = text;
}

function fieldValue(name) { const el = $(name); return el.type === "checkbox" ? el.checked : el.value; }

// the form filled from a command as the server read it (its from_command: model and planned flags, as
// `kvplan fit --from --json` gives them), null for none: the fields an earlier command filled get their values back
function fillFromCommand(read) {
  const values = {};
  if (read) {
    if (read.model) values.model = read.model;
    for (const [flag, v] of Object.entries(read.planned || {})) {
      const name = commandField(flag);
      if (name) values[name] = v;
    }
  }
  for (const [name, before] of Object.entries(state.filledByCommand)) {
    if (!(name in values)) setField(name, before);
  }
  const filled = {};
  for (const [name, v] of Object.entries(values)) {
    filled[name] = name in state.filledByCommand ? state.filledByCommand[name] : fieldValue(name);
    setField(name, v);
  }
  state.filledByCommand = filled;
  syncCustomGpu();
  syncGpuLabels();
  syncConcurrency();
  syncSliderFromNumber();
}

// under the box: the command's flags the form has no field for, its environment, and its notes (the server's words)
function renderFromCommand(read) {
  const list = $("from-extra");
  list.innerHTML = "";
  if (!read) return;
  const extra = Object.entries(read.planned || {}).filter(([flag]) => !commandField(flag))
    .map(([flag, v]) => (v === true ? flag : v === false ? flag.replace(/^--/, "--no-") : `${flag} ${v}`));
  const lines = [];
  if (extra.length) lines.push("from the command: " + extra.join(", "));
  if ((read.env || []).length) lines.push("environment from the command: " + read.env.join(" "));
  for (const line of [...lines, ...(read.notes || [])]) {
    const li = document.createElement("li"); li.textContent = line; list.appendChild(li);
  }
}

function schedule(delayMs = 200) {
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, delayMs);
}

// ------------------------------------------------------------------ max_model_len slider (log scale)

function sliderToTokens(pos) {
  const lo = Math.log2(SLIDER_MIN_TOKENS), hi = Math.log2(Math.max(state.modelLimit, SLIDER_MIN_TOKENS * 2));
  const raw = 2 ** (lo + (hi - lo) * pos / 1000);
  const step = raw >= 4096 ? 1024 : 256;
  return Math.min(state.modelLimit, Math.max(SLIDER_MIN_TOKENS, Math.round(raw / step) * step));
}

function syncSliderFromNumber(tokens) {
  const typed = $("max_model_len").value.trim();
  const n = /^\d+$/.test(typed) ? Number(typed) : Number(tokens || 0);  // 32k, auto: the plan's length places the slider
  if (!n || n < 1) return;
  const lo = Math.log2(SLIDER_MIN_TOKENS), hi = Math.log2(Math.max(state.modelLimit, SLIDER_MIN_TOKENS * 2));
  $("max_model_len_slider").value = String(Math.round(1000 * (Math.log2(Math.max(n, SLIDER_MIN_TOKENS)) - lo) / (hi - lo)));
}

function syncCustomGpu() {
  $("custom-gpu").hidden = $("gpu").value !== "custom";
  $("auto-gpu").hidden = $("gpu").value !== "auto";
}
function syncConcurrency() { $("concurrency-box").hidden = !isAutoLength($("max_model_len").value); }

// ------------------------------------------------------------------ uploads

async function uploadConfig(file) {
  clearErrors();
  try {
    const res = await api(`/api/config?name=${encodeURIComponent(file.name)}`, null, file.slice(0, file.size, "application/json"));
    $("model").value = res.model;
    $("revision").value = "";
    $("drop").dataset.uploaded = res.id;
    $("drop").querySelector("code").textContent = file.name;
    schedule(0);
  } catch (e) { showError(e, "form-error"); }
}

function wireDrop() {
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault(); drop.classList.remove("over");
    if (e.dataTransfer.files.length) uploadConfig(e.dataTransfer.files[0]);
  });
  $("config-file").addEventListener("change", (e) => { if (e.target.files.length) uploadConfig(e.target.files[0]); });
}

// ------------------------------------------------------------------ traffic tab

async function runSimulation() {
  $("sim-error").textContent = "";
  const body = planBody(readForm());
  body.curve = false;
  const file = $("sim-file").files[0];
  try {
    if (file) {
      const up = await api(`/api/workload?name=${encodeURIComponent(file.name)}`, null, file.slice(0, file.size, "text/csv"));
      body.workload = up.workload;
    } else body.workload = $("sim-workload").value;
    if ($("sim-rate").value) body.rate_per_s = Number($("sim-rate").value);
    body.max_requests = Number($("sim-n").value || 2000);
    if ($("sim-slo").value.trim()) body.slo = $("sim-slo").value.trim();
    body.capacity = $("sim-capacity").checked;
    // the capacity search's own controls, as kvplan capacity's --percentile, --target-rate, --gpu-hour-usd, --vary
    if ($("sim-percentile").value) body.percentile = Number($("sim-percentile").value);
    if ($("sim-target").value) body.target_rate_per_s = Number($("sim-target").value);
    if ($("sim-price").value.trim()) body.gpu_hour_usd = $("sim-price").value.trim();
    const vary = $("sim-vary").value.split(";").map((s) => s.trim()).filter(Boolean);
    if (vary.length) body.vary = vary;
    // the drafter's acceptance, as kvplan simulate's --spec-acceptance-rate, --spec-mean-acceptance-length,
    // --spec-draft-acceptance-rate (the server refuses two at once, or one without speculative_config)
    if ($("sim-spec-rate").value) body.spec_acceptance_rate = Number($("sim-spec-rate").value);
    if ($("sim-spec-length").value) body.spec_mean_acceptance_length = Number($("sim-spec-length").value);
    if ($("sim-spec-draft").value) body.spec_draft_acceptance_rate = Number($("sim-spec-draft").value);
    $("sim-run").disabled = true;
    renderSimulation(await api("/api/simulate", body));
  } catch (e) {
    const b = e.body || {};
    $("sim-error").textContent = pageWords((b.field ? b.field + ": " : "") + (b.message || e.message) + (b.fix ? ` — ${b.fix}` : ""));
  } finally { $("sim-run").disabled = false; }
}

function renderSimulation(d) {
  const tbody = document.querySelector("#sim-table tbody");
  tbody.innerHTML = "";
  $("cap-compare").hidden = !d.capacity_rows;
  if (d.capacity_rows) { renderComparison(d); return; }
  // the result as `kvplan simulate` prints it, in the server's words (simulate.pool_line, workload_line, result_rows,
  // latency_rows, throughput_line, goodput_line), shown as they stand: a line in a row of its own, a row under its label,
  // the latency rows under their columns
  const rows = [];
  for (const line of d.setup_lines || []) rows.push(["", line]);
  for (const row of d.result_rows || []) rows.push(row);
  if ((d.latency_rows || []).length) rows.push({ head: ["", ...d.latency_columns] }, ...d.latency_rows);
  for (const line of d.rate_lines || []) rows.push(["", line]);
  // the speculative decode step and its time per token, where kvplan simulate prints it ('step time: speculative
  // decode step ...' after the goodput line: the server's step_lines, one per example step, in kvplan's own words),
  // and the note on how the acceptance was read and simulated
  ((d.step_model || {}).example_steps || []).forEach((e, i) => {
    if (e.speculative) rows.push(["step time", d.step_lines[i]]);
  });
  for (const n of d.result.notes || []) {
    if (n.startsWith("speculative decoding (")) rows.push(["speculative decoding", n]);
  }
  // the capacity search's answer as `kvplan capacity` prints it, a row a line (the server's capacity_lines, from
  // simulate.capacity_lines: the rate rounded down, why no rate meets the SLO, a rate above it that met it again, the
  // replicas for the target and the cost at each price), shown as they stand
  (d.capacity_lines || []).forEach((line, i) => rows.push([i === 0 ? "capacity at the SLO" : "", line]));
  // a row of fewer cells than the latency rows spans the rest with its last
  const width = Math.max(2, ...rows.map((r) => (r.head || r).length));
  for (const row of rows) {
    const cells = row.head || row;
    const tr = document.createElement("tr");
    cells.forEach((text, i) => {
      const cell = document.createElement(row.head || i === 0 ? "th" : "td");
      cell.textContent = text;
      if (i === cells.length - 1 && cells.length < width) cell.colSpan = width - cells.length + 1;
      tr.appendChild(cell);
    });
    tbody.appendChild(tr);
  }
}

// the rows of /api/simulate with vary (kvplan capacity --vary): one deployment each, best first, the best marked
function renderComparison(d) {
  const c = d.capacity_rows;
  // the columns, each row's cells (its rate, costs, and the best row's mark or why a row has no answer) and the lines
  // under the table (why a row has no answer, 'not monotone in the rate', each plan's warnings and the step-time
  // model's caveats, with the rows they concern) as the server words them (simulate.compare_columns, compare_cells,
  // compare_lines: `kvplan capacity --vary`'s table and lines): the page shows them as they stand
  const thead = document.querySelector("#cap-table thead");
  thead.innerHTML = "";
  const htr = document.createElement("tr");
  for (const col of c.columns) { const th = document.createElement("th"); th.textContent = col.title; htr.appendChild(th); }
  thead.appendChild(htr);
  const tbody = document.querySelector("#cap-table tbody");
  tbody.innerHTML = "";
  for (const r of c.rows) {
    const tr = document.createElement("tr");
    if (r.best) tr.className = "best";
    r.cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      const last = i === r.cells.length - 1;
      td.className = last ? (r.cell ? "refused" : "mark") : c.columns[i].numeric ? "num" : "";
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }
  $("cap-reasons").innerHTML = "";
  for (const line of c.lines) {
    const li = document.createElement("li");
    li.className = line.kind === "warning" ? "warn" : line.kind === "note" ? "note" : "";
    li.textContent = line.text;
    $("cap-reasons").appendChild(li);
  }
  // the workload, requests per probe, SLO, target, what the costs price and the fields the vary replaced, as the
  // server words them (simulate.compare_note: the command's heading line)
  $("cap-note").textContent = c.note;
}

// ------------------------------------------------------------------ deploy tab

async function runScaffold() {
  $("scaffold-error").textContent = "";
  $("files").innerHTML = "";
  const body = planBody(readForm());
  body.curve = false;
  if ($("served_model_name").value.trim()) body.served_model_name = $("served_model_name").value.trim();
  try {
    const d = await api("/api/scaffold", body);
    for (const name of ["serve.sh", "docker-compose.yml"]) if (d.files[name]) addFile(name, d.files[name]);
  } catch (e) {
    const b = e.body || {};
    $("scaffold-error").textContent = pageWords((b.field ? b.field + ": " : "") + (b.message || e.message) + (b.fix ? ` — ${b.fix}` : ""));
  }
}

function addFile(name, text) {
  const wrap = document.createElement("div");
  wrap.className = "file";
  wrap.innerHTML = "<div class='file-head'><b></b> <button type='button'>Copy</button></div><pre></pre>";
  wrap.querySelector("b").textContent = name;
  wrap.querySelector("pre").textContent = text;
  wrap.querySelector("button").addEventListener("click", async (e) => {
    await copyText(text);
    e.target.textContent = "Copied";
    setTimeout(() => { e.target.textContent = "Copy"; }, 1500);
  });
  $("files").appendChild(wrap);
}

async function copyText(text) {
  try { await navigator.clipboard.writeText(text); return; } catch (e) { /* fall back below */ }
  const ta = document.createElement("textarea");
  ta.value = text; document.body.appendChild(ta); ta.select();
  document.execCommand("copy"); ta.remove();
}

// ------------------------------------------------------------------ start

function wireTabs() {
  document.querySelectorAll(".tabs button").forEach((btn) => btn.addEventListener("click", () => {
    document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("active", b === btn));
    document.querySelectorAll(".tab").forEach((t) => { t.hidden = t.id !== btn.dataset.tab; });
  }));
}

// a GPU's entry in the list as the server words it (render.gpu_choice_label): the total its plan uses, under wsl2
// the card's WSL2 total (nvidia-smi's memory.total)
function gpuLabel(g, wsl2) { return wsl2 ? g.wsl2_label : g.label; }

function syncGpuLabels() {
  const byId = Object.fromEntries(state.gpus.map((g) => [g.id, g]));
  for (const o of $("gpu").options) if (byId[o.value]) o.textContent = gpuLabel(byId[o.value], $("wsl2").checked);
}

async function loadCatalogs() {
  const [models, gpus, features] = await Promise.all([api("/api/models"), api("/api/gpus"), api("/api/features")]);
  state.gpus = gpus; state.features = features;
  for (const m of models) { const o = document.createElement("option"); o.value = m.id; $("model-list").appendChild(o); }
  const sel = $("gpu");
  const auto = new Option("auto: the smallest GPU × TP that starts, first start included", "auto");
  sel.appendChild(auto);
  for (const g of gpus) sel.appendChild(new Option(gpuLabel(g, false), g.id));
  sel.appendChild(new Option("custom size…", "custom"));
  for (const v of features.vllm_versions || []) { const o = document.createElement("option"); o.value = v; $("version-list").appendChild(o); }
  for (const v of features.load_formats || []) $("load-format-list").appendChild(new Option(v, v));
  for (const v of features.moe_backends || []) $("moe-backend-list").appendChild(new Option(v, v));
  for (const v of features.mamba_cache_dtypes || []) $("mamba_cache_dtype").appendChild(new Option(v, v));
  // the release a plan takes when the field is empty: kvplan's default, which need not be the newest in the list
  if (features.default_vllm_version) $("vllm_version").placeholder = `${features.default_vllm_version} (kvplan's default release)`;
  $("tab-traffic").hidden = !features.simulate;
  $("tab-deploy").hidden = !features.scaffold;
  $("sim-limit").textContent = fmtInt(features.limits.simulate_requests);
  for (const [name, desc] of Object.entries(features.traces || {})) $("sim-workload").appendChild(new Option(`${name} — ${desc}`, name));
}

async function main() {
  wireTabs();
  wireDrop();
  await loadCatalogs();
  writeForm(formFromUrl());
  syncGpuLabels();
  const form = $("form");
  form.addEventListener("input", (e) => {
    if (e.target.id === "max_model_len_slider") $("max_model_len").value = String(sliderToTokens(Number(e.target.value)));
    else if (e.target.id === "max_model_len") { syncSliderFromNumber(); syncConcurrency(); }
    if (e.target.id === "gpu") syncCustomGpu();
    if (e.target.id === "wsl2") syncGpuLabels();
    if (e.target.id === "from_command") schedule(500);  // a command is pasted or typed: planned once it rests
    else if (e.target.id !== "config-file") schedule();
  });
  form.addEventListener("change", (e) => { if (e.target.id === "gpu") syncCustomGpu(); });
  form.addEventListener("submit", (e) => { e.preventDefault(); schedule(0); });
  $("gpu-more").addEventListener("click", () => { state.showAllGpus = !state.showAllGpus; refreshGpuTable(state.lastValues, state.tableSeq); });
  $("share").addEventListener("click", async () => { await copyText(location.href); $("share-note").textContent = "link copied"; });
  $("sim-run").addEventListener("click", runSimulation);
  $("scaffold-run").addEventListener("click", runScaffold);
  await refresh();
}

main();
