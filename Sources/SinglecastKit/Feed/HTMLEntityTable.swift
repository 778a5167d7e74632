import CLibXML2
import Foundation

/// The entities a feed may use without declaring them: XML's five, and HTML 4's named ones
/// (`&nbsp;`, `&eacute;`, `&rsquo;`…), which feeds use as if they were XML's.
///
/// libxml2 asks for each entity it meets (the SAX `getEntity` callback). An HTML entity is
/// handed back as a "predefined" entity, which libxml2 replaces by its content as plain text.
final class HTMLEntityTable {
    /// The HTML entities met so far, by name.
    private var entities: [String: UnsafeMutablePointer<xmlEntity>] = [:]

    deinit {
        for entity in entities.values {
            free(UnsafeMutableRawPointer(mutating: entity.pointee.name))
            free(entity.pointee.content)
            entity.deallocate()
        }
    }

    /// The entity called `name`, or nil when neither XML nor HTML defines it.
    func entity(named name: UnsafePointer<xmlChar>) -> xmlEntityPtr? {
        if let predefined = xmlGetPredefinedEntity(name) { return predefined }
        let key = String(cString: name)
        if let entity = entities[key] { return entity }
        guard let html = htmlEntityLookup(name), let scalar = Unicode.Scalar(html.pointee.value) else { return nil }
        let content = String(Character(scalar))
        let entity = UnsafeMutablePointer<xmlEntity>.allocate(capacity: 1)
        entity.initialize(to: xmlEntity())
        entity.pointee.type = XML_ENTITY_DECL
        entity.pointee.etype = XML_INTERNAL_PREDEFINED_ENTITY
        entity.pointee.name = UnsafePointer(Self.duplicate(key))
        entity.pointee.content = Self.duplicate(content)
        entity.pointee.length = Int32(content.utf8.count)
        entities[key] = entity
        return entity
    }

    /// A C copy of `string`, to release with `free`.
    private static func duplicate(_ string: String) -> UnsafeMutablePointer<xmlChar>? {
        strdup(string).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: xmlChar.self) }
    }
}
