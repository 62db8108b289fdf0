// Run by scripts/test.sh when its PostgreSQL run ends, passed or not: drops the databases the run
// left for its end (FORMGATE_TEST_RUN, test/helpers/database.ts).
import { dropRunDatabases } from './database.js';

console.log(`dropped the run's ${await dropRunDatabases()} test databases`);
