// The objects of a PostgreSQL database that `formgate restore` compares with what the migrations
// make: every kind a dump can carry, each with its definition as this server prints it.
import type { DB } from './schema/index.js';
import { type Kysely, sql } from 'kysely';
import type { SchemaObjects } from './schema-differences.js';

type Row = { key: string; definition: string | null };

// an object that belongs to an extension (pg_trgm's functions, types and operators) is the extension's
const NOT_OF_EXTENSION = (catalog: string, oid: string) =>
  `not exists (select 1 from pg_depend e where e.classid = '${catalog}'::regclass and e.objid = ${oid} and e.deptype = 'e')`;

/**
 * Each of the current schema's objects, and the database's own (extensions, event triggers, other
 * schemas, publications), keyed "<kind> <name>[ on <table>]", with its definition.
 */
const QUERIES: string[] = [
  `select 'table ' || c.relname as key, concat_ws(' ', c.relkind::text, case when c.relrowsecurity then 'row security' end, case when c.relforcerowsecurity then 'forced' end) as definition
     from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')`,
  `select 'column ' || c.relname || '.' || a.attname as key,
       concat_ws(' ', format_type(a.atttypid, a.atttypmod), case when a.attnotnull then 'not null' end, 'default ' || pg_get_expr(d.adbin, d.adrelid),
         nullif(a.attidentity, ''), nullif(a.attgenerated, ''), case when a.attcollation <> 0 and a.attcollation <> 100 then 'collate ' || a.attcollation::regcollation end) as definition
     from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')`,
  `select 'view ' || c.relname as key, pg_get_viewdef(c.oid) as definition
     from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('v', 'm')`,
  `select 'sequence ' || c.relname as key, format_type(s.seqtypid, null) || ' ' || s.seqincrement || ' ' || s.seqmin || ' ' || s.seqmax as definition
     from pg_class c join pg_sequence s on s.seqrelid = c.oid where c.relnamespace = current_schema()::regnamespace`,
  `select 'index ' || c.relname || ' on ' || t.relname as key, pg_get_indexdef(c.oid) as definition
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
     where t.relnamespace = current_schema()::regnamespace`,
  `select 'constraint ' || con.conname || ' on ' || coalesce(t.relname, con.contypid::regtype::text) as key, pg_get_constraintdef(con.oid) as definition
     from pg_constraint con left join pg_class t on t.oid = con.conrelid where con.connamespace = current_schema()::regnamespace`,
  `select 'trigger ' || tg.tgname || ' on ' || t.relname as key, pg_get_triggerdef(tg.oid) || ' ' || tg.tgenabled::text as definition
     from pg_trigger tg join pg_class t on t.oid = tg.tgrelid where not tg.tgisinternal and t.relnamespace = current_schema()::regnamespace`,
  `select 'rule ' || r.rulename || ' on ' || t.relname as key, pg_get_ruledef(r.oid) as definition
     from pg_rewrite r join pg_class t on t.oid = r.ev_class where t.relnamespace = current_schema()::regnamespace and r.rulename <> '_RETURN'`,
  `select 'policy ' || p.polname || ' on ' || t.relname as key, p.polcmd::text || ' ' || coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '') as definition
     from pg_policy p join pg_class t on t.oid = p.polrelid`,
  `select case p.prokind when 'a' then 'aggregate ' when 'p' then 'procedure ' else 'function ' end || p.oid::regprocedure::text as key,
       case when p.prokind = 'a' then null else pg_get_functiondef(p.oid) end as definition
     from pg_proc p where p.pronamespace = current_schema()::regnamespace and ${NOT_OF_EXTENSION('pg_proc', 'p.oid')}`,
  `select 'type ' || t.typname as key, t.typtype::text as definition
     from pg_type t where t.typnamespace = current_schema()::regnamespace and t.typtype in ('b', 'd', 'e', 'r', 'm')
       and t.typelem = 0 and ${NOT_OF_EXTENSION('pg_type', 't.oid')}`,
  `select 'operator ' || o.oid::regoperator::text as key, o.oprcode::text as definition
     from pg_operator o where o.oprnamespace = current_schema()::regnamespace and ${NOT_OF_EXTENSION('pg_operator', 'o.oid')}`,
  `select 'extension ' || x.extname as key, x.extnamespace::regnamespace::text as definition from pg_extension x where x.extname <> 'plpgsql'`,
  `select 'event trigger ' || e.evtname as key, e.evtevent::text || ' ' || e.evtfoid::regproc::text as definition from pg_event_trigger e`,
  `select 'schema ' || n.nspname as key, null as definition from pg_namespace n
     where n.nspname not like 'pg\\_%' and n.nspname not in ('information_schema', 'public') and n.nspname <> current_schema()`,
  `select 'publication ' || p.pubname as key, null as definition from pg_publication p`,
];

/** The objects of the database `db` reads, by kind and name, with their definitions. */
export async function describePostgresSchema(db: Kysely<DB>): Promise<SchemaObjects> {
  const objects: SchemaObjects = new Map();
  for (const query of QUERIES) {
    const { rows } = await sql.raw<Row>(query).execute(db);
    for (const row of rows) objects.set(row.key, row.definition ?? '');
  }
  return objects;
}

/** The current schema's tables, parents (by foreign key) before children: the order their rows can be restored in. */
export async function tablesParentsFirst(db: Kysely<DB>): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`
    select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relkind in ('r', 'p') order by relname`.execute(db);
  const { rows: links } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint con
    join pg_class c on c.oid = con.conrelid join pg_class p on p.oid = con.confrelid
    where con.contype = 'f' and c.relnamespace = current_schema()::regnamespace and c.oid <> p.oid`.execute(db);
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const link of links) if (link.child === name) visit(link.parent);
    ordered.push(name);
  };
  for (const { name } of tables) visit(name);
  return ordered;
}
