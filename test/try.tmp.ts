import { startApp } from './helpers/app.js';
import { DashboardClient } from './helpers/dashboard.js';
const app = await startApp({}, {});
const c = new DashboardClient(app);
const g = await c.get('/signup');
console.log(g.status, c.cookies, c.csrf);
const p = await c.post('/signup', { email: 'a@example.com', password: 'password123' });
console.log(p.status, p.location, p.html.slice(-600));
await app.close();
