<?xml version="1.0" encoding="UTF-8"?>
<!-- RAF 2.0 to an MMAX2 project, one file per run (decided: XSLT 1.0 has no standard way
     to write several files and exsl:document needs write access, so the stylesheet is
     run once per project file; corefio.xslt_engine.from_raf_files runs it for each).
     Parameter file: "manifest" (the list of files to make, as XML), "common_paths",
     "mmax", "words", "level", "scheme"; doc: the document's number (from 1); level: the
     level's name; stem: the document's file stem (the engine chooses it).
     Mapping (what corefio's MMAX2 reader reads back to the same tokens, sentences,
     markables, non-identity links and chains): the default layer is the level "coref";
     every other layer is a level of its name; each chain of two or more mentions (or of
     a mention with an entity id) is a coref_set set named set_<chain number> (entity ids
     are renumbered, as the sets of MMAX2 usually are); a non-identity link is a
     markable_pointer attribute named by its type on its source (one per type and
     markable); markable attributes are free text, set memberships markable_set
     attributes; sentences are a "sentence" level; word attribute columns are word
     attributes. Rules applied are reported with xsl:message. -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                extension-element-prefixes="exsl">
  <xsl:output method="xml" encoding="UTF-8" indent="no"/>
  <xsl:param name="file" select="'manifest'"/>
  <xsl:param name="doc" select="1"/>
  <xsl:param name="level" select="'coref'"/>
  <xsl:param name="stem" select="'document'"/>

  <xsl:variable name="nl" select="'&#10;'"/>
  <xsl:variable name="identity" select="' coreference identity ident coref IDENT '"/>
  <xsl:variable name="the-doc" select="/struct/struct[@type='document'][number($doc)]"/>
  <xsl:key name="chain" match="struct[@type='markable']" use="concat(generate-id(..), '|', @chain)"/>
  <xsl:key name="by-source" match="struct[@type='reflink']" use="concat(generate-id(..), '|', @source)"/>

  <xsl:template match="/">
    <xsl:choose>
      <xsl:when test="$file = 'manifest'"><xsl:call-template name="manifest"/></xsl:when>
      <xsl:when test="$file = 'common_paths'"><xsl:call-template name="common-paths"/></xsl:when>
      <xsl:when test="$file = 'mmax'"><xsl:call-template name="mmax"/></xsl:when>
      <xsl:when test="$file = 'words'"><xsl:call-template name="words"/></xsl:when>
      <xsl:when test="$file = 'level'"><xsl:call-template name="level"/></xsl:when>
      <xsl:when test="$file = 'scheme'"><xsl:call-template name="scheme"/></xsl:when>
      <xsl:otherwise>
        <xsl:message terminate="yes">error: unknown file kind <xsl:value-of select="$file"/></xsl:message>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- the levels: coref, the other layers (first use order), sentence -->
  <xsl:template name="level-names">
    <l name="coref"/>
    <xsl:call-template name="distinct">
      <xsl:with-param name="values" select="/struct/struct[@type='document']/struct[@type='markable']/@layer"/>
      <xsl:with-param name="element" select="'l'"/>
    </xsl:call-template>
    <xsl:if test="/struct/struct[@type='document']/struct[@type='primary_data']/struct[@type='sentence']">
      <l name="sentence"/>
    </xsl:if>
  </xsl:template>

  <!-- the distinct values of $values in order of first appearance, as <$element name=…/>:
       one pass over the values per distinct value (no backward axis) -->
  <xsl:template name="distinct">
    <xsl:param name="values"/>
    <xsl:param name="element"/>
    <xsl:param name="seen" select="'&#xE001;'"/>
    <xsl:variable name="next" select="$values[not(contains($seen, concat('&#xE001;', ., '&#xE001;')))][1]"/>
    <xsl:if test="$next">
      <xsl:element name="{$element}"><xsl:attribute name="name"><xsl:value-of select="$next"/></xsl:attribute></xsl:element>
      <xsl:call-template name="distinct">
        <xsl:with-param name="values" select="$values"/>
        <xsl:with-param name="element" select="$element"/>
        <xsl:with-param name="seen" select="concat($seen, $next, '&#xE001;')"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <xsl:template name="manifest">
    <files>
      <xsl:variable name="levels-rtf"><xsl:call-template name="level-names"/></xsl:variable>
      <xsl:for-each select="exsl:node-set($levels-rtf)/l">
        <file kind="scheme" level="{@name}"/>
      </xsl:for-each>
      <xsl:for-each select="/struct/struct[@type='document']">
        <document n="{position()}" name="{@name}">
          <xsl:copy-of select="@part"/>
          <xsl:for-each select="exsl:node-set($levels-rtf)/l"><level name="{@name}"/></xsl:for-each>
        </document>
      </xsl:for-each>
    </files>
  </xsl:template>

  <xsl:template name="common-paths">
    <common_paths>
      <xsl:value-of select="$nl"/>
      <basedata_path>Basedata/</basedata_path><xsl:value-of select="$nl"/>
      <scheme_path>Schemes/</scheme_path><xsl:value-of select="$nl"/>
      <markable_path>Markables/</markable_path><xsl:value-of select="$nl"/>
      <annotations>
        <xsl:value-of select="$nl"/>
        <xsl:variable name="levels-rtf"><xsl:call-template name="level-names"/></xsl:variable>
        <xsl:for-each select="exsl:node-set($levels-rtf)/l">
          <level name="{@name}" schemefile="{@name}_scheme.xml">$_<xsl:value-of select="@name"/>_level.xml</level>
          <xsl:value-of select="$nl"/>
        </xsl:for-each>
      </annotations>
      <xsl:value-of select="$nl"/>
    </common_paths>
  </xsl:template>

  <xsl:template name="mmax">
    <mmax_project>
      <xsl:value-of select="$nl"/>
      <words><xsl:value-of select="concat($stem, '_words.xml')"/></words>
      <xsl:value-of select="$nl"/>
      <corefio_document name="{$the-doc/@name}">
        <xsl:copy-of select="$the-doc/@part"/>
      </corefio_document>
      <xsl:value-of select="$nl"/>
    </mmax_project>
  </xsl:template>

  <xsl:template name="words">
    <xsl:variable name="pd" select="$the-doc/struct[@type='primary_data']"/>
    <xsl:variable name="columns" select="$pd/feat[@type='column']"/>
    <xsl:message>rule w-word: <xsl:value-of select="count($pd//w)"/> words</xsl:message>
    <words>
      <xsl:value-of select="$nl"/>
      <xsl:for-each select="$pd//w">
        <word>
          <xsl:attribute name="id">
            <xsl:choose>
              <xsl:when test="$pd/@ids = 'yes'"><xsl:value-of select="@id"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="concat('word_', position())"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <xsl:if test="$columns">
            <xsl:call-template name="unpack">
              <xsl:with-param name="packed" select="string(@v)"/>
              <xsl:with-param name="columns" select="$columns"/>
            </xsl:call-template>
          </xsl:if>
          <xsl:value-of select="."/>
        </word>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
    </words>
  </xsl:template>

  <!-- RAF's packed column values as word attributes (an empty field: no attribute) -->
  <xsl:template name="unpack">
    <xsl:param name="packed"/>
    <xsl:param name="columns"/>
    <xsl:if test="$columns">
      <xsl:variable name="field" select="substring-before(concat($packed, '|'), '|')"/>
      <xsl:if test="contains($field, '\') and $field != '\e'">
        <xsl:message terminate="yes">error: a word attribute value with an escaped | or \ (not supported by this stylesheet)</xsl:message>
      </xsl:if>
      <xsl:if test="$field != ''">
        <xsl:attribute name="{$columns[1]/@name}">
          <xsl:if test="$field != '\e'"><xsl:value-of select="$field"/></xsl:if>
        </xsl:attribute>
      </xsl:if>
      <xsl:call-template name="unpack">
        <xsl:with-param name="packed" select="substring-after($packed, '|')"/>
        <xsl:with-param name="columns" select="$columns[position() &gt; 1]"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <xsl:template name="scheme">
    <xsl:variable name="ms" select="/struct/struct[@type='document']/struct[@type='markable']
                  [($level = 'coref' and not(@layer)) or @layer = $level]"/>
    <annotationscheme>
      <xsl:value-of select="$nl"/>
      <xsl:if test="$level != 'sentence'">
        <attribute id="level_coref_set" name="coref_set" type="markable_set"><value id="value_coref_set" name="coref_set"/></attribute>
        <xsl:value-of select="$nl"/>
      </xsl:if>
      <!-- pointer attributes: the non-identity link types from this level; set attributes -->
      <xsl:variable name="names-rtf">
        <xsl:call-template name="distinct">
          <xsl:with-param name="values" select="/struct/struct[@type='document']/struct[@type='reflink']
                            [@reflinktype and not(contains($identity, concat(' ', @reflinktype, ' ')))]
                            [($level = 'coref' and not(contains(@source, ':'))) or starts-with(@source, concat($level, ':'))]/@reflinktype"/>
          <xsl:with-param name="element" select="'pointer'"/>
        </xsl:call-template>
        <xsl:call-template name="distinct">
          <xsl:with-param name="values" select="$ms/feat[@type='set']/@name"/>
          <xsl:with-param name="element" select="'set'"/>
        </xsl:call-template>
      </xsl:variable>
      <xsl:for-each select="exsl:node-set($names-rtf)/*">
        <attribute id="level_{@name}" name="{@name}">
          <xsl:attribute name="type">
            <xsl:choose>
              <xsl:when test="self::pointer">markable_pointer</xsl:when>
              <xsl:otherwise>markable_set</xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <value id="value_{@name}" name="{@name}"/>
        </attribute>
        <xsl:value-of select="$nl"/>
      </xsl:for-each>
    </annotationscheme>
  </xsl:template>

  <xsl:template name="level">
    <xsl:variable name="pd" select="$the-doc/struct[@type='primary_data']"/>
    <xsl:variable name="explicit" select="$pd/@ids = 'yes'"/>
    <xsl:variable name="words" select="$pd//w"/>
    <xsl:element name="markables" namespace="www.eml.org/NameSpaces/{$level}">
      <xsl:value-of select="$nl"/>
      <xsl:choose>
        <xsl:when test="$level = 'sentence' and $pd/struct[@type='sentence']">
          <xsl:if test="$the-doc/struct[@type='markable'][@layer = 'sentence']">
            <xsl:message>dropped: the markables of the layer "sentence" (its level holds the sentences)</xsl:message>
          </xsl:if>
          <xsl:message>rule sentence-level: <xsl:value-of select="count($pd/struct[@type='sentence'])"/> sentences as markables</xsl:message>
          <xsl:for-each select="$pd/struct[@type='sentence']">
            <xsl:element name="markable" namespace="www.eml.org/NameSpaces/sentence">
              <xsl:attribute name="id"><xsl:value-of select="concat('sentence_', position())"/></xsl:attribute>
              <xsl:attribute name="span">
                <xsl:call-template name="word-id"><xsl:with-param name="w" select="w[1]"/><xsl:with-param name="explicit" select="$explicit"/></xsl:call-template>
                <xsl:if test="count(w) &gt; 1">
                  <xsl:text>..</xsl:text>
                  <xsl:call-template name="word-id"><xsl:with-param name="w" select="w[last()]"/><xsl:with-param name="explicit" select="$explicit"/></xsl:call-template>
                </xsl:if>
              </xsl:attribute>
              <xsl:attribute name="mmax_level">sentence</xsl:attribute>
            </xsl:element>
            <xsl:value-of select="$nl"/>
          </xsl:for-each>
        </xsl:when>
        <xsl:otherwise>
          <xsl:variable name="ms" select="$the-doc/struct[@type='markable'][($level = 'coref' and not(@layer)) or @layer = $level]"/>
          <xsl:message>rule markable-level: <xsl:value-of select="count($ms)"/> markables on level <xsl:value-of select="$level"/></xsl:message>
          <xsl:for-each select="$ms">
            <xsl:variable name="ref">
              <xsl:if test="@layer"><xsl:value-of select="concat(@layer, ':')"/></xsl:if>
              <xsl:value-of select="@id"/>
            </xsl:variable>
            <xsl:element name="markable" namespace="www.eml.org/NameSpaces/{$level}">
              <xsl:attribute name="id"><xsl:value-of select="@id"/></xsl:attribute>
              <xsl:attribute name="span">
                <xsl:if test="@span">
                  <xsl:call-template name="span">
                    <xsl:with-param name="ranges" select="string(@span)"/>
                    <xsl:with-param name="words" select="$words"/>
                    <xsl:with-param name="explicit" select="$explicit"/>
                  </xsl:call-template>
                </xsl:if>
                <xsl:for-each select="feat[@type='span']">
                  <xsl:if test="position() &gt; 1">,</xsl:if>
                  <xsl:call-template name="span">
                    <xsl:with-param name="ranges" select="@span"/>
                    <xsl:with-param name="words" select="$words"/>
                    <xsl:with-param name="explicit" select="$explicit"/>
                  </xsl:call-template>
                </xsl:for-each>
              </xsl:attribute>
              <xsl:attribute name="mmax_level"><xsl:value-of select="$level"/></xsl:attribute>
              <!-- the chain as a set, when it has two mentions or more (or an entity) -->
              <xsl:choose>
                <!-- (a markable of another layer in no chain has no chain number) -->
                <xsl:when test="@chain != '' and (@entity or key('chain', concat(generate-id(..), '|', @chain))[2])">
                  <xsl:attribute name="coref_set"><xsl:value-of select="concat('set_', @chain)"/></xsl:attribute>
                </xsl:when>
                <xsl:otherwise><xsl:attribute name="coref_set">empty</xsl:attribute></xsl:otherwise>
              </xsl:choose>
              <xsl:for-each select="key('by-source', concat(generate-id(..), '|', $ref))
                                    [@reflinktype and not(contains($identity, concat(' ', @reflinktype, ' ')))]">
                <xsl:attribute name="{@reflinktype}">
                  <xsl:for-each select="@target | feat[@type='target']/@target">
                    <xsl:if test="position() &gt; 1">;</xsl:if>
                    <xsl:choose>
                      <xsl:when test="contains(., ':')"><xsl:value-of select="."/></xsl:when>
                      <xsl:when test="$level != 'coref'"><xsl:value-of select="concat('coref:', .)"/></xsl:when>
                      <xsl:otherwise><xsl:value-of select="."/></xsl:otherwise>
                    </xsl:choose>
                  </xsl:for-each>
                </xsl:attribute>
              </xsl:for-each>
              <xsl:for-each select="feat[@type='attribute'] | feat[@type='set']">
                <xsl:attribute name="{@name}"><xsl:value-of select="."/></xsl:attribute>
              </xsl:for-each>
            </xsl:element>
            <xsl:value-of select="$nl"/>
          </xsl:for-each>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:element>
  </xsl:template>

  <xsl:template name="word-id">
    <xsl:param name="w"/>
    <xsl:param name="explicit"/>
    <xsl:choose>
      <xsl:when test="$explicit"><xsl:value-of select="$w/@id"/></xsl:when>
      <xsl:otherwise><xsl:value-of select="concat('word_', $w/@n)"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- RAF ranges "3..5,8" as word ids "word_3..word_5,word_8" -->
  <xsl:template name="span">
    <xsl:param name="ranges"/>
    <xsl:param name="words"/>
    <xsl:param name="explicit"/>
    <xsl:variable name="range" select="substring-before(concat($ranges, ','), ',')"/>
    <xsl:if test="$range != ''">
      <xsl:variable name="a" select="substring-before(concat($range, '..'), '..')"/>
      <xsl:variable name="b" select="substring-after($range, '..')"/>
      <xsl:call-template name="word-id"><xsl:with-param name="w" select="$words[number($a)]"/><xsl:with-param name="explicit" select="$explicit"/></xsl:call-template>
      <xsl:if test="$b != '' and $b != $a">
        <xsl:text>..</xsl:text>
        <xsl:call-template name="word-id"><xsl:with-param name="w" select="$words[number($b)]"/><xsl:with-param name="explicit" select="$explicit"/></xsl:call-template>
      </xsl:if>
      <xsl:if test="contains($ranges, ',') and substring-after($ranges, ',') != ''">
        <xsl:text>,</xsl:text>
        <xsl:call-template name="span">
          <xsl:with-param name="ranges" select="substring-after($ranges, ',')"/>
          <xsl:with-param name="words" select="$words"/>
          <xsl:with-param name="explicit" select="$explicit"/>
        </xsl:call-template>
      </xsl:if>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
