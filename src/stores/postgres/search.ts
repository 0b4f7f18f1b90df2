import { setRecent } from '../../session/kept-memory';
import type { MemoryEntry, MemorySearchResult } from '../../session/memory-entry';
import { fuzzyDistance, fuzzyMatches, lowerBound, MEMORY_QUERY_LIMITS, prefixWordsPerTerm, queryTerms } from '../../session/memory-search';
import type { MemoryKey } from '../../session/snapshots';
import { memoryKeyString } from '../apply-changes';
import { tenantOf } from '../snapshot-rows';
import { SCOPE_LEXEME } from './migrations';

/** A query term is spelled out as at most this many words it begins; beyond, it stays a `:*` prefix. */
const PREFIX_WORDS = 32;

/** A tsquery operand matching `term` as a prefix (`'term':*`) or exactly. */
const tsTerm = (t: string, prefix: boolean) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*' : ''}`;

/** A memory's id, version and vocabulary (sorted) as this process last read them. */
interface Vocabulary {
  pk: string;
  version: string;
  words: string[];
}

/** Per memory scope searched here: its vocabulary, to expand a typo with no vocabulary fetch. */
export type Vocabularies = Map<string, Vocabulary>;

type Run = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
type Row = { kind: string; value: string; score: number | null; seq: string | null; words: string[] | null };

/**
 * Ranked search over a memory's stored entries in PostgreSQL: the GIN index on each entry's
 * tsvector finds the matches, ts_rank orders them. Each query term matches as a prefix, spelled
 * out as the memory's words it begins (exact lexemes: a cheaper index lookup and rank than a
 * `:*` prefix; up to PREFIX_WORDS of them, fewer for a query of many terms); a term that is no
 * word's prefix in this memory is replaced by its nearest words within the typo distance (as
 * AgentMemory's fuzzy 0.2). Bounded by MEMORY_QUERY_LIMITS, since a tsquery of tens of thousands of
 * operands exceeds PostgreSQL's stack depth.
 */
export async function searchMemory(
  run: Run,
  s: string,
  vocabularies: Vocabularies,
  key: MemoryKey,
  query: string,
  limit: number,
): Promise<MemorySearchResult[]> {
  const terms = queryTerms(query);
  if (terms.length === 0 || limit <= 0) return [];
  // Fewer words per prefix the more terms, so the tsquery stays within MEMORY_QUERY_LIMITS.operands.
  const prefixWords = prefixWordsPerTerm(terms.length, PREFIX_WORDS);
  const scope = memoryKeyString(key);
  const vocabulary = vocabularies.get(scope);
  // Typos expanded against the vocabulary as this process last read it: exact if the memory has not changed since (checked below).
  const guesses = vocabulary ? typoWords(terms, vocabulary.words) : [];
  const { rows } = await run(searchStatement(s), [
    tenantOf(key),
    key.agentName,
    key.userId,
    terms,
    limit,
    guesses,
    vocabulary ? `${vocabulary.pk} ${vocabulary.version}` : '',
    prefixWords,
  ]);
  const result = rows as Row[];
  const memory = result.find((r) => r.kind === 'memory');
  if (!memory) {
    vocabularies.delete(scope);
    return [];
  }
  const current = vocabulary !== undefined && vocabulary.pk === memory.value && vocabulary.version === memory.seq;
  const fetched = result.filter((r) => r.kind === 'word').map((r) => r.value);
  if (!current && fetched.length) setRecent(vocabularies, scope, { pk: memory.value, version: memory.seq!, words: fetched.sort() }, 256);
  let hits = result.filter((r) => r.kind === 'hit');
  const known = result.filter((r) => r.kind === 'term' && r.words!.length > 0);
  const typos = result.filter((r) => r.kind === 'term' && r.words!.length === 0 && fuzzyDistance(r.value) > 0).map((r) => r.value);
  if (!current && (typos.length || guesses.length)) {
    // The memory changed since its vocabulary was read (or never was): expand typos against the one just fetched, then rank again.
    const operands = known.flatMap((r) =>
      r.words!.length > prefixWords ? [tsTerm(r.value, true)] : r.words!.map((w) => tsTerm(w, false)),
    );
    for (const t of typos) for (const w of fuzzyMatches(t, fetched)) operands.push(tsTerm(w, false));
    hits = await rankAgain(run, s, memory.value, operands, limit);
  }
  return hits
    .sort((a, b) => Number(b.score) - Number(a.score) || Number(a.seq) - Number(b.seq))
    .map((r) => ({ ...(JSON.parse(r.value) as MemoryEntry), score: Number(r.score) }));
}

/**
 * One statement: the memory's row, each query term's words in it (C collation: a prefix is an index
 * range), the ranked hits for those and the guesses, and when a term has none and the vocabulary
 * this process holds is not the current one, the vocabulary. The hits' tsquery is a scalar
 * subquery (an InitPlan parameter), so the GIN index can serve it as an index condition: joined
 * from a CTE it is a join filter, and without statistics the planner chooses a sequential scan.
 */
function searchStatement(s: string): string {
  return `WITH m AS (SELECT id, version, quote_literal(${SCOPE_LEXEME('id')})::tsquery AS scope FROM ${s}.memories
                  WHERE tenant = $1 AND agent = $2 AND user_id = $3),
       t AS (SELECT t.term, t.ord, ARRAY(SELECT w.term FROM ${s}.memory_terms w, m WHERE w.memory_pk = m.id
                                    AND w.term >= t.term COLLATE "C" AND w.term < (t.term || chr(1114111)) COLLATE "C"
                                  ORDER BY w.term LIMIT $8::int + 1) AS words
             FROM unnest($4::text[]) WITH ORDINALITY AS t(term, ord)),
       q AS (SELECT to_tsquery('simple', string_agg(op, ' | ')) AS q FROM (
               SELECT op FROM (
                 SELECT t.ord, quote_literal(term) || ':*' AS op FROM t WHERE cardinality(words) > $8::int
                 UNION ALL SELECT t.ord, quote_literal(w) FROM t, unnest(t.words) AS w WHERE cardinality(t.words) BETWEEN 1 AND $8::int
                 UNION ALL SELECT 1000000 + g.ord, quote_literal(g.g) FROM unnest($6::text[]) WITH ORDINALITY AS g(g, ord)
               ) o ORDER BY ord LIMIT ${MEMORY_QUERY_LIMITS.operands}) ops HAVING count(*) > 0),
       hits AS (SELECT e.seq, ts_rank(e.words, (SELECT q FROM q)) AS score FROM ${s}.memory_entries e
                WHERE e.words @@ (SELECT q.q && m.scope FROM q, m) ORDER BY score DESC, e.seq LIMIT $5)
       SELECT 'hit' AS kind, e.body AS value, h.score, h.seq, NULL::text[] AS words
         FROM hits h, m, ${s}.memory_entries e WHERE e.memory_pk = m.id AND e.seq = h.seq
       UNION ALL SELECT 'memory', id::text, NULL, version, NULL FROM m
       UNION ALL SELECT 'term', term, NULL, NULL, words FROM t
       UNION ALL SELECT 'word', w.term, NULL, NULL, NULL FROM ${s}.memory_terms w, m
         WHERE w.memory_pk = m.id AND m.id || ' ' || m.version <> $7 AND EXISTS (SELECT 1 FROM t WHERE cardinality(words) = 0)`;
}

/** The hits of memory `pk` for `operands` (bounded as MEMORY_QUERY_LIMITS.operands); none for no operand. */
async function rankAgain(run: Run, s: string, pk: string, operands: string[], limit: number): Promise<Row[]> {
  if (operands.length === 0) return [];
  operands.length = Math.min(operands.length, MEMORY_QUERY_LIMITS.operands);
  const again = await run(
    `SELECT 'hit' AS kind, body AS value, ts_rank(words, q) AS score, seq FROM ${s}.memory_entries, to_tsquery('simple', $2) AS q
     WHERE words @@ (q && quote_literal(${SCOPE_LEXEME('$1::bigint')})::tsquery) ORDER BY score DESC, seq LIMIT $3`,
    [pk, operands.join(' | '), limit],
  );
  return again.rows as Row[];
}

/** The words of `vocabulary` (sorted) within the typo distance of each term that begins none of them. */
function typoWords(terms: readonly string[], vocabulary: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of terms) {
    const lo = lowerBound(vocabulary, t);
    if (lo < vocabulary.length && vocabulary[lo].startsWith(t)) continue;
    for (const w of fuzzyMatches(t, vocabulary)) out.push(w);
  }
  return out;
}
