import { renderConfigReference } from './src/config/reference.ts';
console.log(renderConfigReference());
