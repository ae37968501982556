/**
 * Usage of the repository's scripts, from the one place that already says it: the script's own header comment.
 * `--help` / `-h` prints it and exits 0 before anything heavy is loaded; an option the script does not take is a usage
 * error (exit 2, with the usage on stderr), never a silent default or a whole run with the wrong settings.
 */
const fs = require('node:fs');

/** The first block comment of `file`, without its comment markers. */
function headerUsage(file) {
  const text = fs.readFileSync(file, 'utf8');
  const block = /\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!block) return '';
  return `${block[1].split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n').trim()}\n`;
}

const wantsHelp = (args) => args.includes('--help') || args.includes('-h');

/**
 * Handles `--help` and unknown options of a script: `valued` options take the next argument, `switches` none.
 * Exits the process (0 for help, 2 for a usage error); returns when the arguments are fine.
 */
function checkScriptArgs(file, args, spec) {
  if (wantsHelp(args)) {
    process.stdout.write(headerUsage(file));
    process.exit(0);
  }
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, '').split('=')[0];
    if (args[i].startsWith('--') && spec.valued.includes(name)) {
      if (!args[i].includes('=')) {
        const value = args[++i];
        if (value === undefined || value.startsWith('--')) usageError(file, `--${name} needs a value`);
      }
    } else if (!(args[i].startsWith('--') && spec.switches.includes(name))) usageError(file, `unknown option ${args[i]}`);
  }
}

/**
 * The one rule for an option's count, limit or timeout, in every script and the operator CLI (scripts/cli/operator.ts
 * intFlag): decimal digits only (no sign, blank, point, exponent or hex: `5.0`, `1e3`, `0x10` are refused, never
 * converted), from `min` to `max`, a safe integer. Returns `{ value }`, or `{ problem }`: what is wrong, in the words
 * each caller says before its usage (exit 2).
 */
function parseWholeNumber(name, raw, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const value = /^\d+$/.test(raw ?? '') ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return { value };
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return { problem: `--${name} must be a whole number ${range}, got ${JSON.stringify(raw ?? '')}` };
}

/**
 * The whole number (parseWholeNumber, at least `min`) given as `--name N` or `--name=N`, or `fallback` when the option
 * is absent; anything else is a usage error (exit 2), never a run with a value the script cannot use (NaN, 2.5, -1,
 * 0x10, or 0 callers).
 */
function wholeNumberOption(file, args, name, fallback, { min = 0 } = {}) {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return fallback;
  const raw = args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : args[i + 1];
  const parsed = parseWholeNumber(name, raw, { min });
  if (parsed.problem !== undefined) usageError(file, parsed.problem);
  return parsed.value;
}

function usageError(file, message) {
  process.stderr.write(`${message}\n\n${headerUsage(file)}`);
  process.exit(2);
}

module.exports = { headerUsage, wantsHelp, checkScriptArgs, wholeNumberOption, parseWholeNumber };
