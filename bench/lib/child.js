/**
 * Each measured thing runs in a child process of its own: its CPU is not shared with the fixtures
 * in the parent, and its peak RSS (`process.resourceUsage().maxRSS`) is its own. The parent sends
 * one task over IPC; the child answers with one result and exits.
 */
import { fork } from 'node:child_process';

const STDERR_KEPT = 4000;

/**
 * @param {string | URL} script a module that calls `serveTask`
 * @param {unknown} task sent to the child as its one message
 * @param {{ timeoutMs: number, execArgv?: string[], env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ result: any, maxRssKb: number }>}
 */
export function runChild(script, task, { timeoutMs, execArgv = [], env = process.env }) {
  return new Promise((resolve, reject) => {
    const child = fork(script, [], { execArgv, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    let answer;
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', (message) => {
      answer = message;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (answer?.ok) resolve({ result: answer.result, maxRssKb: answer.maxRssKb });
      else reject(new Error(answer?.error ?? `${script} exited (${signal ?? code}) without a result: ${stderr.trim()}`));
    });
    child.send(task);
  });
}

/**
 * The child's side: run `handler` on the parent's task, send back its result and this process's
 * peak RSS, then exit (whatever handles a library under test left open).
 * @param {(task: any) => Promise<unknown>} handler
 */
export function serveTask(handler) {
  process.once('message', async (task) => {
    let answer;
    try {
      const result = await handler(task);
      answer = { ok: true, result, maxRssKb: process.resourceUsage().maxRSS };
    } catch (error) {
      answer = { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    process.send(answer, () => process.exit(0));
  });
}
