// Views in Catalog (see catalog.h).
#include "catalog/catalog.h"
#include "catalog/location.h"

namespace cairn::catalog {

using engine::ViewBuilder;
using engine::ViewMetadata;

Result<std::shared_ptr<const ViewMetadata>> Catalog::ReadView(const std::string& location) {
  ASSIGN_OR_RETURN(std::string text, options_.file_io->Read(location));
  auto parsed = ViewMetadata::FromJsonText(text);
  if (!parsed.ok()) {
    return Status::Internal("view metadata file " + location + " is invalid: " +
                            parsed.status().message());
  }
  return std::make_shared<const ViewMetadata>(std::move(parsed).value());
}

Result<LoadedView> Catalog::LoadView(const TableIdentifier& id) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  ASSIGN_OR_RETURN(Pointer ptr, options_.metastore->Load(id, EntityKind::kView));
  ASSIGN_OR_RETURN(auto metadata, ReadView(ptr.metadata_location));
  return LoadedView{ptr.metadata_location, std::move(metadata)};
}

Result<LoadedView> Catalog::CreateView(const Namespace& ns, const CreateViewRequest& request,
                                       const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateName(request.name, "view"));
  TableIdentifier id{ns, request.name};
  if (options_.metastore->Load(id, EntityKind::kTable).ok()) {
    return EntryExists(id, EntityKind::kView, EntityKind::kTable);
  }
  if (options_.metastore->Load(id, EntityKind::kView).ok()) {
    return EntryExists(id, EntityKind::kView, EntityKind::kView);
  }
  ViewMetadata m = ViewBuilder::Empty();
  m.view_uuid = options_.ids->NewUuid();
  if (request.location && !request.location->empty()) {
    RETURN_IF_ERROR(CheckLocation(*request.location));
    m.location = TrimLocation(*request.location);
  } else {
    ASSIGN_OR_RETURN(m.location, DefaultLocation(id));
  }
  m.properties = request.properties;
  engine::Schema schema = request.schema;
  schema.schema_id = 0;
  m.schemas = {schema};
  engine::ViewVersion version = request.version;
  version.schema_id = 0;
  m.versions = {version};
  m.current_version_id = version.version_id;
  m.version_log = {{version.timestamp_ms, version.version_id}};
  ASSIGN_OR_RETURN(std::string location, NewMetadataLocation(m.location, m.properties, ""));
  RETURN_IF_ERROR(
      WriteAndSwap(id, EntityKind::kView, std::nullopt, location, m.ToJson().dump(),
                   idempotency));
  return LoadedView{location, std::make_shared<const ViewMetadata>(std::move(m))};
}

Result<LoadedView> Catalog::CommitView(const ViewChange& change,
                                       const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(ValidateNamespace(change.id.ns));
  for (int attempt = 1;; ++attempt) {
    ASSIGN_OR_RETURN(Pointer ptr, options_.metastore->Load(change.id, EntityKind::kView));
    ASSIGN_OR_RETURN(auto base, ReadView(ptr.metadata_location));
    for (const engine::ViewRequirement& r : change.requirements) RETURN_IF_ERROR(r.Check(*base));
    ViewBuilder builder(*base, options_.clock->NowMillis());
    RETURN_IF_ERROR(builder.ApplyAll(change.updates));
    if (!builder.changed()) return LoadedView{ptr.metadata_location, base};
    ASSIGN_OR_RETURN(ViewMetadata next, builder.Build());
    if (next.location != base->location) RETURN_IF_ERROR(CheckLocation(next.location));
    ASSIGN_OR_RETURN(std::string location,
                     NewMetadataLocation(next.location, next.properties, ptr.metadata_location));
    Status st = WriteAndSwap(change.id, EntityKind::kView, ptr, location, next.ToJson().dump(),
                             idempotency);
    if (st.ok()) return LoadedView{location, std::make_shared<const ViewMetadata>(std::move(next))};
    if (st.code() != Status::Code::kCommitFailed || attempt >= options_.max_commit_attempts) {
      return st;
    }
    Backoff(attempt);
  }
}

Status Catalog::DropView(const TableIdentifier& id) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  return options_.metastore->Drop(id, EntityKind::kView);
}

Status Catalog::RenameView(const TableIdentifier& from, const TableIdentifier& to) {
  RETURN_IF_ERROR(ValidateNamespace(from.ns));
  RETURN_IF_ERROR(ValidateNamespace(to.ns));
  RETURN_IF_ERROR(ValidateName(to.name, "view"));
  return options_.metastore->Rename(from, to, EntityKind::kView);
}

Result<LoadedView> Catalog::RegisterView(const TableIdentifier& id, const std::string& location,
                                         const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  RETURN_IF_ERROR(ValidateName(id.name, "view"));
  RETURN_IF_ERROR(CheckLocation(location));
  auto metadata = ReadView(location);
  if (!metadata.ok()) {
    return Status::InvalidArgument("cannot register view " + location + ": " +
                                   metadata.status().message());
  }
  IdempotencyFinish finish{idempotency.key, idempotency.owner, 200, ReplayMarker(location)};
  RETURN_IF_ERROR(
      options_.metastore->Commit({PointerSwap{id, EntityKind::kView, std::nullopt, location}},
                                 idempotency.key.empty() ? nullptr : &finish));
  return LoadedView{location, *metadata};
}

Result<LoadedView> Catalog::LoadViewAt(const std::string& metadata_location) {
  ASSIGN_OR_RETURN(auto metadata, ReadView(metadata_location));
  return LoadedView{metadata_location, std::move(metadata)};
}

}  // namespace cairn::catalog
