// esbuild bundles `import './styles.css'` into console.css; the type checker only needs to know it exists.
declare module '*.css';
