// The server as `npm start` runs it; an entry file of your own makes the same call with your modules (README, Serve your own tools).
import { bootstrap } from './bootstrap.js';

await bootstrap();
