import { readFileSync } from 'node:fs';
import { SpamScorer } from '../../src/spam/score.js';
import { CountsInMemory } from '../../src/spam/base-model.js';
import { learnedPoints } from '../../src/spam/learned-finding.js';
import { isHeldOut, trainingPosts, type LabelledPost } from './corpus.js';
import { trainModel } from './model.js';
const formPosts = (name: string): LabelledPost[] => (JSON.parse(readFileSync(`bench/spam/form-posts/${name}.json`, 'utf8')) as Record<string,string>[]).map((fields, i) => ({ id: `form-${name}/${i}`, spam: name === 'spam', fields: fields as never }));
const fixtures = (name: string) => JSON.parse(readFileSync(`test/fixtures/spam-corpus/${name}.json`, 'utf8')) as Record<string, unknown>[];
const sa = await trainingPosts();
const forms = [...formPosts('ham'), ...formPosts('spam')];
const weight = Number(process.env.W ?? 3);
const train = [...sa.filter((p) => !isHeldOut(p)), ...Array(weight).fill(forms.filter((p) => !isHeldOut(p))).flat()];
const scorer = new SpamScorer({ base: new CountsInMemory(trainModel(train, 'x')) });
let i = 0;
type Row = { spam: boolean; soft: number; ord: number; p: number; ev: number; decisive: boolean };
const collect = async (posts: { spam: boolean; fields: Record<string, unknown> }[]) => {
  const rows: Row[] = [];
  for (const p of posts) {
    const v = await scorer.score(p.fields, `10.1.${(i >> 8) & 255}.${i++ & 255}`);
    const lp = v.learned.evidence ? learnedPoints(v.learned.probability, v.learned.evidence) : 0;
    const soft = v.score - lp;
    rows.push({ spam: p.spam, soft, ord: v.reasons.filter((r) => /^spam phrase .*\(\+3\)$/.test(r)).length, p: v.learned.probability, ev: v.learned.evidence, decisive: v.spam && v.score < 10 });
  }
  return rows;
};
const sets = { sa: await collect(sa.filter(isHeldOut)), forms: await collect(forms.filter(isHeldOut)), fix: await collect([...fixtures('ham').map((f) => ({ spam: false, fields: f })), ...fixtures('spam').map((f) => ({ spam: true, fields: f }))]) };
for (const fe of [1, 3, 5, 8]) for (const ordW of [1]) for (const st of [1.5]) for (const up of [15]) for (const dz of [0.15]) {
  const pts = (p: number, ev: number) => { const lean = Math.max(0, Math.abs(p - 0.5) - dz) / (0.5 - dz) * Math.min(1, ev / fe); const x = Math.round((p >= 0.5 ? up : 10) * lean ** st); return p >= 0.5 ? x : -x; };
  const judge = (r: Row) => r.decisive || r.soft - r.ord * (3 - ordW) + (r.ev ? pts(r.p, r.ev) : 0) >= 10;
  const out = Object.entries(sets).map(([k, rs]) => { const h = rs.filter((r) => !r.spam), s = rs.filter((r) => r.spam); return `${k} FP ${(h.filter(judge).length / h.length * 100).toFixed(2)} caught ${(s.filter(judge).length / s.length * 100).toFixed(1)}`; });
  console.log(`fe ${fe} dz ${dz} ord ${ordW} steep ${st} up ${up} | ${out.join(' | ')}`);
}
