// @ts-check
// A TypeDoc plugin for the docs site (loaded through typedoc.json's "plugin").
//
// The spec marks each rule with a raw HTML anchor (`<a id="v1-5.8-1"></a>`) and the pages link to
// them (`v2.md#v2-10.2-1`). TypeDoc renders those links correctly (`spec_v2.html#v2-10.2-1`) but
// checks link anchors only against the ids it generated itself (headings, members), so it warns
// about every rule-id link. After each page is rendered, this plugin records every `id` the page's
// HTML contains as a known anchor of that page, so that TypeDoc's check sees the hand-written ones
// too and still warns about anchors that exist nowhere.
import { Renderer } from "typedoc";

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.renderer.on(Renderer.EVENT_END_PAGE, (page) => {
    if (page.contents === undefined) return;
    const slugger = app.renderer.router?.getSlugger(page.model);
    if (slugger === undefined) return;
    for (const match of page.contents.matchAll(/\sid="([^"]+)"/g)) {
      const id = match[1];
      if (id !== undefined && !slugger.hasAnchor(id)) slugger.seen.set(id, 0);
    }
  });
}
