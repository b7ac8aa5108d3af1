/**
 * `local/layering`: one table of allowed import directions (see LAYERS in eslint.config.js,
 * modelled on VS Code's `code-layering`). Every file of a listed zone may import its own zone,
 * the zones it lists under `may`, and (bare specifiers) only the packages its `packages` allow.
 * Everywhere, a dependency is imported by its name or one of its documented entry points
 * (`SUBPATHS`), never by a file inside it (`dockerode/lib/docker`), and Node's modules only
 * with `node:` (so `fs` cannot slip past a `node:*` rule).
 */
import { builtinModules } from 'node:module';
import path from 'node:path';

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function stripExt(p) {
  return p.replace(/\.(d\.ts|tsx?|mjs|cjs|jsx?)$/, '');
}

/** The zone a repository-relative path (without extension) belongs to: first match wins. */
export function zoneOf(rel, layers) {
  for (const [name, zone] of Object.entries(layers)) {
    for (const m of zone.files) {
      if (m.endsWith('/') ? `${rel}/`.startsWith(m) : rel === m) return name;
    }
  }
  return null;
}

function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function matches(spec, list) {
  return list.some((a) => (a.endsWith('*') ? spec.startsWith(a.slice(0, -1)) : spec === a || packageName(spec) === a));
}

/** `packages` lists what a zone may import ('*' for anything); `deny` what it may not even then. */
function packageAllowed(spec, zone) {
  return matches(spec, zone.packages) && !matches(spec, zone.deny ?? []);
}

function describe(zone) {
  const allowed = zone.packages.join(', ') || 'none';
  return zone.deny?.length ? `${allowed} except ${zone.deny.join(', ')}` : allowed;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layering table in eslint.config.js (docs/architecture.md).' },
    schema: [{ type: 'object', additionalProperties: true }],
    messages: {
      layer: "{{from}} may not import {{to}} ('{{spec}}'). Allowed: {{allowed}}. See the layering table in eslint.config.js and docs/architecture.md.",
      pkg: "{{from}} may not import the package '{{spec}}'. Allowed here: {{allowed}}.",
      subpath: "Import '{{name}}' by its name, not a file inside it ('{{spec}}'): its internals are not its API.",
      bare: "Import Node's '{{spec}}' as 'node:{{spec}}'.",
      pure: "A file in a '{{folder}}/' folder decides without I/O: it may not import '{{spec}}'. Allowed: other '{{folder}}/' folders, {{allowed}}.",
      slice: "'{{spec}}' reaches inside the feature '{{slice}}': import what it offers from its index ('{{entry}}'), or move a helper several features share to ui/ or shared/.",
    },
  },
  create(context) {
    const { root, layers, subpaths = [], testFiles = [], testMay = [], pure, slices = [] } = context.options[0];
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const fromZone = zoneOf(stripExt(file), layers);
    const isTest = testFiles.some((re) => new RegExp(re).test(file));
    // A feature's decisions without I/O live in a folder of this name (VS Code's common/): keyed
    // on the name, not a table row, so every feature's such folder is held to it.
    const inPure = (p) => Boolean(pure) && p.split('/').slice(0, -1).includes(pure.folder);
    const isPure = !isTest && inPure(file);

    /** A pure file's import: another pure folder, or what pure.may lists (relative) or pure.packages (bare). */
    function pureProblem(node, spec, target) {
      if (!isPure) return false;
      const ok = target !== null ? inPure(target) || pure.may.some((m) => target.startsWith(m)) : pure.packages.includes(spec);
      if (!ok) context.report({ node, messageId: 'pure', data: { folder: pure.folder, spec, allowed: [...pure.may, ...pure.packages].join(', ') } });
      return !ok;
    }

    /**
     * A folder of `slices` holds one folder per feature; from outside a feature, only its index is
     * its API (VS Code's contributions meet through services, not each other's files), so what a
     * feature keeps to itself can change without a search through the others.
     */
    function sliceProblem(node, spec, target) {
      if (isTest) return false;
      for (const base of slices) {
        if (!target.startsWith(base)) continue;
        const slice = target.slice(base.length).split('/')[0];
        const home = `${base}${slice}`;
        if (file.startsWith(`${home}/`)) return false;
        const inside = stripExt(target).slice(home.length);
        if (inside === '' || inside === '/index') return false;
        context.report({ node, messageId: 'slice', data: { spec, slice, entry: `${home}/index.ts` } });
        return true;
      }
      return false;
    }

    function check(node, spec) {
      if (typeof spec !== 'string') return;
      if (spec.startsWith('.')) {
        const target = path.relative(root, path.resolve(path.dirname(context.filename), spec)).split(path.sep).join('/');
        if (pureProblem(node, spec, target)) return;
        if (sliceProblem(node, spec, target)) return;
        if (!fromZone) return;
        const toZone = zoneOf(stripExt(target), layers);
        if (toZone === fromZone) return;
        const may = layers[fromZone].may;
        if (toZone && may.includes(toZone)) return;
        if (isTest && testMay.some((m) => (m.endsWith('/') ? target.startsWith(m) : stripExt(target) === m))) return;
        context.report({ node, messageId: 'layer', data: { from: fromZone, to: toZone ?? target, spec, allowed: may.join(', ') || 'nothing else' } });
        return;
      }
      if (pureProblem(node, spec, null)) return;
      if (spec.startsWith('node:')) {
        if (fromZone && !isTest && !packageAllowed(spec, layers[fromZone])) {
          context.report({ node, messageId: 'pkg', data: { from: fromZone, spec, allowed: describe(layers[fromZone]) } });
        }
        return;
      }
      const name = packageName(spec);
      if (BUILTINS.has(name)) {
        context.report({ node, messageId: 'bare', data: { spec } });
        return;
      }
      if (spec !== name && !subpaths.includes(spec)) {
        context.report({ node, messageId: 'subpath', data: { name, spec } });
        return;
      }
      if (fromZone && !isTest && !packageAllowed(spec, layers[fromZone])) {
        context.report({ node, messageId: 'pkg', data: { from: fromZone, spec, allowed: describe(layers[fromZone]) } });
      }
    }

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportType: (node) => {
        const lit = node.argument?.literal ?? node.argument;
        if (lit?.type === 'Literal') check(lit, lit.value);
      },
    };
  },
};

export default { rules: { layering: rule } };
