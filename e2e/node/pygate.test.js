// End-to-end tests of `pygate mcp --no-ui` with the official MCP TypeScript
// SDK client, launched the way Claude Desktop launches servers: no shell, a
// small inherited environment, cwd "/".
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.env.PYGATE_BIN;
const machinePython = execFileSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"]).toString().trim();

before(() => {
  assert.ok(binary && existsSync(binary), "PYGATE_BIN must name a built pygate binary (make test sets it)");
});

function newHome(settings = {}) {
  const home = mkdtempSync(join(tmpdir(), "pygate-node-"));
  writeFileSync(join(home, "settings.json"), JSON.stringify({ approval: "allow-all", python_version: machinePython, ...settings }));
  return home;
}

async function connect(home) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "--no-ui"],
    env: { PYGATE_HOME: home },
    cwd: "/",
    stderr: "pipe",
  });
  const client = new Client({ name: "node-sdk-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
}

test("tools are listed with their input limits", async () => {
  const client = await connect(newHome());
  try {
    assert.equal(client.getServerVersion().name, "pygate");
    const { tools } = await client.listTools();
    const run = tools.find((t) => t.name === "run_python");
    assert.ok(run, "run_python is listed");
    assert.ok(tools.find((t) => t.name === "get_result"), "get_result is listed");
    assert.equal(run.inputSchema.properties.code.maxLength, 1048576);
    assert.deepEqual(run.inputSchema.required, ["code"]);
    assert.match(run.description, new RegExp(`CPython ${machinePython.replace(".", "\\.")}`));
    assert.match(run.description, /approves or denies/);
  } finally {
    await client.close();
  }
});

test("stdout, value, stderr and non-ASCII text come back", async () => {
  const client = await connect(newHome());
  try {
    const r = await client.callTool({
      name: "run_python",
      arguments: { code: "import sys\nprint('naïve café ☕ 中文')\nprint('warn', file=sys.stderr)\n{'a': 1}" },
    });
    assert.equal(r.isError, undefined);
    assert.equal(r.structuredContent.status, "ok");
    assert.equal(r.structuredContent.stdout, "naïve café ☕ 中文\n");
    assert.equal(r.structuredContent.stderr, "warn\n");
    assert.equal(r.structuredContent.value, "{'a': 1}");
    assert.match(textOf(r), /naïve café ☕ 中文/);
  } finally {
    await client.close();
  }
});

test("an exception is an error result with a traceback", async () => {
  const client = await connect(newHome());
  try {
    const r = await client.callTool({ name: "run_python", arguments: { code: "x = {}\nx['missing']" } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.status, "error");
    assert.equal(r.structuredContent.error.type, "KeyError");
    assert.match(textOf(r), /Traceback[\s\S]*main\.py", line 2[\s\S]*KeyError: 'missing'/);
  } finally {
    await client.close();
  }
});

test("concurrent calls, progress, and a pending answer picked up with get_result", async () => {
  const client = await connect(newHome({ answer_within_seconds: 2 }));
  try {
    const progress = [];
    const [slow, ...fast] = await Promise.all([
      client.callTool(
        { name: "run_python", arguments: { code: "import time\ntime.sleep(4)\n'slow done'" } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      ),
      ...[1, 2, 3].map((i) => client.callTool({ name: "run_python", arguments: { code: `${i} + ${i}` } })),
    ]);
    assert.deepEqual(fast.map((r) => r.structuredContent.value), ["2", "4", "6"]);
    assert.equal(slow.structuredContent.status, "pending");
    assert.match(textOf(slow), /get_result/);
    assert.ok(progress.length > 0, "progress notifications arrived while waiting");
    const done = await client.callTool({
      name: "get_result",
      arguments: { execution_id: slow.structuredContent.execution_id, wait_seconds: 20 },
    });
    assert.equal(done.structuredContent.status, "ok");
    assert.equal(done.structuredContent.value, "'slow done'");
  } finally {
    await client.close();
  }
});

// Pids of live processes whose command line contains marker. Python runs in
// a PID namespace of its own, so tests find processes by command line.
function findProcesses(marker) {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1][0];
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

async function waitFor(check, ms, message) {
  const deadline = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test("aborting a call cancels the run", async () => {
  const home = newHome();
  const client = await connect(home);
  try {
    const controller = new AbortController();
    const marker = "sleep\u00003020";
    const call = client.callTool(
      { name: "run_python", arguments: { code: "import subprocess\nsubprocess.run(['sleep', '3020'])" } },
      undefined,
      { signal: controller.signal },
    );
    await waitFor(() => findProcesses(marker).length > 0, 30000, "the run never started");
    controller.abort();
    await assert.rejects(call);
    await waitFor(() => findProcesses(marker).length === 0, 5000, "the cancelled run's sleep is still alive");
    await waitFor(() => findProcesses(join(home, "runs")).length === 0, 5000, "the cancelled run's Python is still alive");
    const after = await client.callTool({ name: "run_python", arguments: { code: "'alive'" } });
    assert.equal(after.structuredContent.value, "'alive'");
  } finally {
    await client.close();
  }
});

test("headless ask refuses with a sentence saying how to allow it", async () => {
  const client = await connect(newHome({ approval: "ask" }));
  try {
    const r = await client.callTool({ name: "run_python", arguments: { code: "print(1)" } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.status, "denied");
    assert.match(textOf(r), /open PyGate/);
  } finally {
    await client.close();
  }
});
