/**
 * GraphiQL's page, loaded on the first request that asks for it. `@graphql-yoga/render-graphiql`
 * inlines GraphiQL's whole bundle as one string: importing it at start cost ~33 MiB of the
 * server's idle RSS and ~32 MiB of its heap (PERFORMANCE.md §5), for a page few requests ask for.
 */
import type { GraphiQLOptions } from 'graphql-yoga';

let renderer: Promise<(options: GraphiQLOptions) => string> | undefined;

/**
 * Yoga's `renderGraphiQL`: the HTML of GraphiQL from the installed package (no CDN, so it works
 * offline). The first call imports the package and renders a ~9 MB page (a few hundred ms, more
 * on a loaded machine); later calls reuse the import.
 * @throws whatever the import throws (the package missing): Yoga answers that request with 500,
 *   and the next request tries the import again.
 */
export async function renderGraphiQLLazily(options: GraphiQLOptions): Promise<string> {
  renderer ??= import('@graphql-yoga/render-graphiql').then(
    (module) => module.renderGraphiQL,
    (error: unknown) => {
      renderer = undefined;
      throw error;
    },
  );
  return (await renderer)(options);
}
