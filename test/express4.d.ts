// Express 4 is installed under the alias `express4`; its API is typed close enough by Express 5's types.
declare module 'express4' {
  import express from 'express';
  export default express;
}
