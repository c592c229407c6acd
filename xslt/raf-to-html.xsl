<?xml version="1.0" encoding="UTF-8"?>
<!--
  raf-to-html.xsl: render a corefio RAF pivot file as a readable HTML page.

  For every document: the text, with every markable bracketed and coloured by its
  chain, then the list of chains. XSLT 1.0 without extensions, so that lxml
  (corefio view) and plain `xsltproc raf-to-html.xsl file.raf.xml` give the same page.

  Chains are computed here the way corefio computes them: the closure of identity
  reflinks (coreference, identity, ident, coref) and shared entity membership. A chain
  is named after its first markable in document order; its colour is taken from a
  12-colour palette by that markable's position.
-->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" encoding="UTF-8" indent="no" doctype-system="about:legacy-compat"/>

  <xsl:key name="mk" match="struct[@type='markable']" use="@id"/>
  <xsl:key name="mk-by-entity" match="struct[@type='markable']" use="feat[@type='entity']/@target"/>
  <xsl:key name="idlink-by-source"
    match="struct[@type='reflink'][contains('|coreference|identity|ident|coref|IDENT|', concat('|', normalize-space(feat[@type='reflinktype']), '|'))]"
    use="feat[@type='source']/@target"/>
  <xsl:key name="idlink-by-target"
    match="struct[@type='reflink'][contains('|coreference|identity|ident|coref|IDENT|', concat('|', normalize-space(feat[@type='reflinktype']), '|'))]"
    use="feat[@type='target'][not(@kind) or @kind='markable']/@target"/>
  <xsl:key name="idlink-by-entity"
    match="struct[@type='reflink'][contains('|coreference|identity|ident|coref|IDENT|', concat('|', normalize-space(feat[@type='reflinktype']), '|'))]"
    use="feat[@type='target'][@kind='entity']/@target"/>
  <!-- spans: one sourcetext feat per span; first and last word id of its target -->
  <xsl:key name="span-start" match="feat[@type='sourcetext']"
    use="substring-before(concat(substring-before(concat(@target, ','), ','), '..'), '..')"/>
  <xsl:key name="span-end" match="feat[@type='sourcetext']"
    use="concat(substring-after(@target, '..'), substring(@target, 1 div not(contains(@target, '..'))))"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <title>corefio: <xsl:value-of select="count(//struct[@type='document'])"/> document(s)</title>
        <style>
          body { font-family: Georgia, serif; max-width: 60em; margin: 2em auto; line-height: 1.9; }
          h1, h2 { font-family: sans-serif; }
          .sentence { margin: 0 0 .4em 0; }
          .open, .close { font-family: monospace; font-weight: bold; }
          .close sub { font-size: 70%; }
          ol.chains li { margin-bottom: .3em; }
          .meta { color: #555; font-family: sans-serif; font-size: 90%; }
          .c0 { color: #1f77b4; } .c1 { color: #d62728; } .c2 { color: #2ca02c; }
          .c3 { color: #9467bd; } .c4 { color: #ff7f0e; } .c5 { color: #8c564b; }
          .c6 { color: #e377c2; } .c7 { color: #17becf; } .c8 { color: #bcbd22; }
          .c9 { color: #7f7f7f; } .c10 { color: #393b79; } .c11 { color: #637939; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="struct[@type='reference_annotation_collection']/struct[@type='document']"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="struct[@type='document']">
    <xsl:variable name="D" select="generate-id(.)"/>
    <section class="document" id="doc-{position()}">
      <h1>
        <xsl:text>Document </xsl:text>
        <xsl:value-of select="@name"/>
        <xsl:if test="@part"> (part <xsl:value-of select="@part"/>)</xsl:if>
      </h1>
      <p class="meta">
        <span class="n-words"><xsl:value-of select="count(.//struct[@type='word'])"/></span> words,
        <span class="n-markables"><xsl:value-of select="count(struct[@type='markable'])"/></span> markables,
        <span class="n-links"><xsl:value-of select="count(struct[@type='reflink'])"/></span> links.
      </p>
      <h2>Text</h2>
      <div class="text">
        <xsl:choose>
          <xsl:when test="struct[@type='primary_data']/struct[@type='sentence']">
            <xsl:for-each select="struct[@type='primary_data']/struct[@type='sentence']">
              <p class="sentence">
                <xsl:apply-templates select="struct[@type='word']" mode="text">
                  <xsl:with-param name="D" select="$D"/>
                </xsl:apply-templates>
              </p>
            </xsl:for-each>
          </xsl:when>
          <xsl:otherwise>
            <p class="sentence">
              <xsl:apply-templates select="struct[@type='primary_data']/struct[@type='word']" mode="text">
                <xsl:with-param name="D" select="$D"/>
              </xsl:apply-templates>
            </p>
          </xsl:otherwise>
        </xsl:choose>
      </div>
      <h2>Chains</h2>
      <ol class="chains">
        <xsl:for-each select="struct[@type='markable']">
          <xsl:variable name="rep">
            <xsl:call-template name="closure">
              <xsl:with-param name="set" select="."/>
              <xsl:with-param name="D" select="$D"/>
              <xsl:with-param name="want" select="'id'"/>
            </xsl:call-template>
          </xsl:variable>
          <xsl:if test="string($rep) = @id">
            <xsl:call-template name="closure">
              <xsl:with-param name="set" select="."/>
              <xsl:with-param name="D" select="$D"/>
              <xsl:with-param name="want" select="'list'"/>
            </xsl:call-template>
          </xsl:if>
        </xsl:for-each>
      </ol>
    </section>
  </xsl:template>

  <!-- one word: opening brackets of spans starting here (longest first), the form,
       closing brackets of spans ending here (shortest first), then the space -->
  <xsl:template match="struct[@type='word']" mode="text">
    <xsl:param name="D"/>
    <xsl:variable name="wid" select="@id"/>
    <xsl:variable name="pos" select="count(preceding::struct[@type='word'])"/>
    <xsl:for-each select="key('span-start', $wid)[generate-id(ancestor::struct[@type='document']) = $D]">
      <xsl:sort select="count(key('span-end-word', concat($D, '#', concat(substring-after(@target, '..'), substring(@target, 1 div not(contains(@target, '..'))))))/preceding::struct[@type='word'])" data-type="number" order="descending"/>
      <xsl:apply-templates select="." mode="bracket">
        <xsl:with-param name="D" select="$D"/>
        <xsl:with-param name="open" select="true()"/>
      </xsl:apply-templates>
    </xsl:for-each>
    <span class="word" id="{generate-id(.)}"><xsl:value-of select="feat[@type='form']"/></span>
    <xsl:for-each select="key('span-end', $wid)[generate-id(ancestor::struct[@type='document']) = $D]">
      <xsl:sort select="count(key('span-end-word', concat($D, '#', substring-before(concat(substring-before(concat(@target, ','), ','), '..'), '..')))/preceding::struct[@type='word'])" data-type="number" order="descending"/>
      <xsl:apply-templates select="." mode="bracket">
        <xsl:with-param name="D" select="$D"/>
        <xsl:with-param name="open" select="false()"/>
      </xsl:apply-templates>
    </xsl:for-each>
    <xsl:choose>
      <xsl:when test="@after"><xsl:value-of select="@after"/></xsl:when>
      <xsl:otherwise><xsl:text> </xsl:text></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:key name="span-end-word" match="struct[@type='word']"
    use="concat(generate-id(ancestor::struct[@type='document']), '#', @id)"/>

  <xsl:template match="feat[@type='sourcetext']" mode="bracket">
    <xsl:param name="D"/>
    <xsl:param name="open"/>
    <xsl:variable name="m" select=".."/>
    <xsl:variable name="colour">
      <xsl:call-template name="closure">
        <xsl:with-param name="set" select="$m"/>
        <xsl:with-param name="D" select="$D"/>
        <xsl:with-param name="want" select="'colour'"/>
      </xsl:call-template>
    </xsl:variable>
    <xsl:variable name="rep">
      <xsl:call-template name="closure">
        <xsl:with-param name="set" select="$m"/>
        <xsl:with-param name="D" select="$D"/>
        <xsl:with-param name="want" select="'id'"/>
      </xsl:call-template>
    </xsl:variable>
    <xsl:choose>
      <xsl:when test="$open">
        <span class="open c{$colour}" data-markable="{$m/@id}" data-chain="{$rep}" title="{$m/@id} (chain {$rep})">[</span>
      </xsl:when>
      <xsl:otherwise>
        <span class="close c{$colour}" data-markable="{$m/@id}" data-chain="{$rep}">]<sub><xsl:value-of select="$rep"/></sub></span>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- the chain of the markables in $set: grow the set through identity links and
       shared entities until it stops growing; then report what is wanted:
       'id' the first markable's id, 'colour' its palette index, 'list' an <li>. -->
  <xsl:template name="closure">
    <xsl:param name="set"/>
    <xsl:param name="D"/>
    <xsl:param name="want"/>
    <xsl:variable name="here" select="key('idlink-by-source', $set/@id)[generate-id(ancestor::struct[@type='document']) = $D]"/>
    <xsl:variable name="entities" select="$set/feat[@type='entity']/@target | $here/feat[@type='target'][@kind='entity']/@target"/>
    <xsl:variable name="next" select="$set
        | key('mk-by-entity', $entities)[generate-id(ancestor::struct[@type='document']) = $D]
        | key('mk', $here/feat[@type='target'][not(@kind) or @kind='markable']/@target)[generate-id(ancestor::struct[@type='document']) = $D]
        | key('mk', key('idlink-by-target', $set/@id)[generate-id(ancestor::struct[@type='document']) = $D]/feat[@type='source']/@target)[generate-id(ancestor::struct[@type='document']) = $D]
        | key('mk', key('idlink-by-entity', $entities)[generate-id(ancestor::struct[@type='document']) = $D]/feat[@type='source']/@target)[generate-id(ancestor::struct[@type='document']) = $D]"/>
    <xsl:choose>
      <xsl:when test="count($next) &gt; count($set)">
        <xsl:call-template name="closure">
          <xsl:with-param name="set" select="$next"/>
          <xsl:with-param name="D" select="$D"/>
          <xsl:with-param name="want" select="$want"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:when test="$want = 'id'">
        <xsl:value-of select="$set[1]/@id"/>
      </xsl:when>
      <xsl:when test="$want = 'colour'">
        <xsl:value-of select="count($set[1]/preceding-sibling::struct[@type='markable']) mod 12"/>
      </xsl:when>
      <xsl:otherwise>
        <li class="chain c{count($set[1]/preceding-sibling::struct[@type='markable']) mod 12}" data-chain="{$set[1]/@id}" data-size="{count($set)}">
          <strong><xsl:value-of select="$set[1]/@id"/></strong>
          <xsl:text> (</xsl:text><xsl:value-of select="count($set)"/><xsl:text>): </xsl:text>
          <xsl:for-each select="$set">
            <xsl:if test="position() &gt; 1"><xsl:text> | </xsl:text></xsl:if>
            <span class="member" data-markable="{@id}">
              <xsl:for-each select="feat[@type='sourcetext']">
                <xsl:if test="position() &gt; 1"><xsl:text> … </xsl:text></xsl:if>
                <xsl:value-of select="."/>
              </xsl:for-each>
            </span>
          </xsl:for-each>
        </li>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
