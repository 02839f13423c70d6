import { Layer } from "effect"
import { defaultElasticsearchOptions, elasticsearchClientLayer, type ElasticsearchOptions } from "./Client.ts"
import { ElasticsearchDocumentIndex } from "./ElasticsearchDocumentIndex.ts"
import { ElasticsearchSearchBackend } from "./ElasticsearchSearchBackend.ts"

/**
 * The document index and the search proxy's backend on the Elasticsearch cluster at `address`
 * (`--elasticsearchAddress`), sharing one client: what Quarry uses instead of PostgreSQL when that option is set.
 */
export const elasticsearchLayers = (address: string, options: ElasticsearchOptions = defaultElasticsearchOptions) =>
  Layer.merge(ElasticsearchDocumentIndex, ElasticsearchSearchBackend).pipe(Layer.provide(elasticsearchClientLayer(address, options)))
